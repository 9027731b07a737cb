import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording

/// Finds the orphans of a frozen heap: objects whose unexplained retains (retain count above the
/// strong references the walk read into them) nothing in the process can account for.
///
/// Only the nodes with unexplained retains are candidates. The holder scan (``HolderScan``) reads
/// every other place a pointer can live; a candidate is an orphan when no word outside tracked
/// objects could point into it, and no tracked object holds more words that could point into it
/// than the strong references the walk read from it to the candidate (an `unowned`, `Unmanaged` or
/// unread field counts as a holder). When in doubt — the scan abstained, or a candidate was found
/// anywhere — it is held.
enum OrphanSearch {
    /// The orphaned nodes of `scan`, ascending; empty when the scan abstained.
    ///
    /// Must run inside ``Recorder/withFrozenObjects(_:)``; `objects` is that snapshot.
    static func orphans(in scan: HeapScan, objects: UnsafeBufferPointer<UInt>) -> [Int] {
        let graph = scan.strongGraph
        let unexplained = LeakAnalysis.unexplainedNodes(of: graph)
        guard !unexplained.isEmpty else { return [] }
        // Node order is address order (the snapshot is sorted), so the candidates come out ascending.
        let result = HolderScan.scan(
            count: unexplained.count,
            candidate: { index in
                let address = objects[scan.recordPosition(ofNode: unexplained[index])]
                let size = UInt(Recorder.frozenRecord(at: address)?.size ?? 16)
                return address ..< address + max(size, 16)
            },
            objects: objects)
        guard let result else { return [] }
        var held = result.heldFromUntrackedMemory
        // Words inside tracked objects: held unless the walk read as many strong references from that
        // object to the candidate.
        var words: [Int: [Int: Int]] = [:]
        for (candidate, holder) in result.trackedHolders where !held[candidate] {
            guard let holderNode = scan.node(at: holder, address: { objects[$0] }) else {
                held[candidate] = true  // a tracked object the walk skipped (deinitializing): unknown layout
                continue
            }
            words[candidate, default: [:]][holderNode, default: 0] += 1
        }
        for (candidate, holders) in words where !held[candidate] {
            let target = UInt32(unexplained[candidate])
            for (holderNode, count) in holders {
                let start = Int(graph.offsets[holderNode])
                let end = Int(graph.offsets[holderNode + 1])
                let read = graph.targets[start ..< end].lazy.filter { $0 == target }.count
                if count > read {
                    held[candidate] = true
                    break
                }
            }
        }
        return unexplained.indices.filter { !held[$0] }.map { unexplained[$0] }
    }
}
