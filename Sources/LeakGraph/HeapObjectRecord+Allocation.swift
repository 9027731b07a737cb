import LeakGraphHeap
import LeakGraphRecording

extension HeapObjectRecord {
    /// The walk's view of one recorded allocation: the one mapping from the recorder's records to the
    /// heap walk's input.
    init(_ record: AllocationRecord) {
        self.init(
            address: record.address, metadata: UInt(record.metadata), size: Int(record.size),
            stackID: record.stackID.map(Int.init))
    }
}
