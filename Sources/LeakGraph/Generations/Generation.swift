import FoundationEssentials
import LeakGraphRecording

/// A point in a program's life to measure growth from (Instruments' "Mark Generation"): which tracked
/// objects were alive then. ``growth(limit:)`` lists the objects allocated since that are still alive,
/// grouped by type and creation site.
///
/// Made by ``LeakChecker/markGeneration()``. It costs 12 bytes per object alive at the mark.
public struct Generation: Sendable {
    /// When the mark was taken.
    public let date: Date
    /// How many tracked objects were alive at the mark.
    public var objectCount: Int { marks.count }

    /// The objects alive at the mark, by address, each stored inverted (`~address`): a plain copy
    /// would look like a reference to the scans that prove orphans or name a root's holder. Ascending
    /// by inverted address.
    let marks: [UInt]
    /// Per mark, the creation stack id (an address reused by a new object from another site is new).
    let stacks: [UInt32]

    init(date: Date, marks: [UInt], stacks: [UInt32]) {
        self.date = date
        self.marks = marks
        self.stacks = stacks
    }

    /// Whether the object at `address` with creation stack `stack` was alive at the mark.
    func contains(address: UInt, stack: UInt32) -> Bool {
        let key = ~address
        var low = 0
        var high = marks.count
        while low < high {
            let middle = (low + high) / 2
            if marks[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < marks.count && marks[low] == key && stacks[low] == stack
    }
}

extension LeakChecker {
    /// Marks a generation: remembers which tracked objects are alive now, so that
    /// ``Generation/growth(limit:)`` can later list what was allocated since and is still alive.
    ///
    /// Recording must be running (``startRecording(maxFrames:)`` or `leakgraph run`); the heap is
    /// frozen while the live objects are listed.
    public static func markGeneration() -> Generation {
        let date = Date()
        let (marks, stacks) = Recorder.ignoringCurrentThread {
            Recorder.withFrozenObjects { objects -> ([UInt], [UInt32]) in
                var entries: [(UInt, UInt32)] = []
                entries.reserveCapacity(objects.count)
                for address in objects {
                    let stack = Recorder.frozenRecord(at: address)?.stack_id ?? AllocationRecord.noStack
                    entries.append((~address, stack))
                }
                entries.sort { $0.0 < $1.0 }
                return (entries.map(\.0), entries.map(\.1))
            }
        }
        return Generation(date: date, marks: marks, stacks: stacks)
    }
}
