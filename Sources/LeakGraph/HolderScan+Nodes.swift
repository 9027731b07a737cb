import LeakGraphHeap
import LeakGraphRecording

extension HolderScan {
    /// Scans for holders of the objects `nodes` of a frozen heap's `scan` (node indices, ascending, so
    /// their memory comes out ascending: the snapshot is sorted by address), each candidate the memory
    /// of its record (at least the 16-byte header). Run inside `Recorder/withFrozenObjects(_:)`;
    /// `objects` is that snapshot.
    ///
    /// - Returns: `nil` when the scan abstained (see ``HolderScan/scan(count:candidate:objects:)``).
    static func scan(nodes: [Int], in scan: HeapScan, objects: UnsafeBufferPointer<UInt>) -> Result? {
        self.scan(
            count: nodes.count,
            candidate: { index in
                let address = objects[scan.recordPosition(ofNode: nodes[index])]
                let size = UInt(Recorder.frozenRecord(at: address)?.size ?? 16)
                return address..<address + max(size, 16)
            },
            objects: objects)
    }
}
