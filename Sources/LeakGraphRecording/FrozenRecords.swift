import CLeakGraphHook

/// The records of a frozen heap's objects by position in its address snapshot, fetched a run at a time
/// (``Recorder/frozenRecord(at:)`` asks once per object): a walk reads them in address order, so most
/// reads come from the run fetched last; a read out of order asks for that one record alone.
///
/// Only valid while the snapshot's freeze is held (``Recorder/withFrozenObjects(_:)``). The runs keep no
/// object's address (the snapshot's buffer, which the orphan scan leaves out, holds them).
public final class FrozenRecords {
    /// How many records one fetch reads.
    static let runLength = 1024

    private let objects: UnsafeBufferPointer<UInt>
    private var run: [lg_record]
    private var runStart = 0
    private var runCount = 0

    /// Records of `objects` (the frozen snapshot's addresses, ascending).
    public init(_ objects: UnsafeBufferPointer<UInt>) {
        self.objects = objects
        run = [lg_record](repeating: lg_record(), count: Self.runLength)
    }

    /// The record of the object at `position` in the snapshot, or `nil` when it is not tracked (or no
    /// freeze is held).
    public func record(at position: Int) -> AllocationRecord? {
        if position < runStart || position >= runStart + runCount {
            guard position == runStart + runCount, let base = objects.baseAddress else {
                return Recorder.frozenRecord(at: objects[position])
            }
            // The next run, from here.
            let count = min(Self.runLength, objects.count - position)
            runStart = position
            runCount = run.withUnsafeMutableBufferPointer { run in
                let fetched = lg_frozen_records(base + position, count, run.baseAddress)
                // No object's address stays in this memory: the orphan scan reads the checking thread's
                // heap memory too, and an address kept here would read as a holder of its object.
                for index in 0..<fetched { run[index].object = 0 }
                return fetched
            }
            guard runCount > 0 else { return nil }
        }
        var record = run[position - runStart]
        guard record.metadata != 0 else { return nil }
        record.object = objects[position]
        return record
    }
}
