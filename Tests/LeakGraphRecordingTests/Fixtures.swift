import LeakGraphRecording

/// 16-byte header + two Ints: 32 bytes.
final class Probe {
    var first = 0
    var second = 0
}

/// Objects that die straight away.
final class Transient {
    var value = 0
}

/// Objects allocated while the thread is ignored.
final class Unrecorded {
    var value = 0
}

/// Objects allocated from several threads.
final class ThreadProbe: Sendable {
    let thread: Int
    let index: Int

    init(thread: Int, index: Int) {
        self.thread = thread
        self.index = index
    }
}

/// Objects whose stacks are checked.
final class TracedProbe {
    var value = 0
}

/// Counts deinits.
final class DeinitCounter {
    var count = 0
}

/// Increments its counter on deinit.
final class Mortal {
    let counter: DeinitCounter

    init(counter: DeinitCounter) {
        self.counter = counter
    }

    deinit {
        counter.count += 1
    }
}

/// Objects allocated while the heap is frozen, on another thread.
final class LateProbe: Sendable {}

/// A box one thread fills and another reads after joining.
final class Slot<Value>: @unchecked Sendable {
    var values: [Value] = []
}

/// The metadata pointer of a class, as the recorder stores it.
func metadataAddress(of type: AnyClass) -> UInt {
    UInt(bitPattern: unsafeBitCast(type, to: UnsafeRawPointer.self))
}

/// The address of an object, without retaining it.
func address(of object: AnyObject) -> UInt {
    UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
}

/// The records of one type in a frozen snapshot (copied out).
func records(ofType type: AnyClass) -> [AllocationRecord] {
    let metadata = metadataAddress(of: type)
    return Recorder.withFrozenHeap { records in records.filter { $0.metadata == metadata } }
}

/// Keeps the optimizer from removing an allocation.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
