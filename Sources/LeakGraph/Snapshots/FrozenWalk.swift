import LeakGraphHeap

/// What a check's walk holds while the heap is still frozen (``LeakChecker/captureLeakedGraph(liveTypes:orphanScan:knownOrphans:steps:progress:whileFrozen:)``):
/// the compact scan, the leaked and orphaned nodes found on it, and the frozen records, whose memory
/// is readable until the freeze ends.
struct FrozenWalk {
    /// The walker that made the scan (its layout cache is reused).
    let walker: HeapWalker
    /// The compact scan of every live object.
    let scan: HeapScan
    /// The leaked nodes, ascending.
    let leaked: [Int]
    /// The orphaned nodes, ascending.
    let orphans: [Int]
    /// The frozen snapshot: every tracked object's address, ascending.
    let objects: UnsafeBufferPointer<UInt>
    /// The record at a position of ``objects``.
    let record: (Int) -> HeapObjectRecord
}
