import CLeakGraphHook

/// Records every Swift heap allocation of this process: the record stage of LeakGraph.
///
/// After ``install(maxFrames:)`` the Swift runtime's allocator is hooked: each new heap object
/// (class instance, closure context, box, array/dictionary/set/string storage) is recorded with its
/// metadata, size and creation stack until its memory is freed. The recorder learns of each death
/// from `free()`: under `leakgraph run` the preloaded library interposes `free`; in-process,
/// installation points the `free` imports of every loaded module at the recorder. `deinit` runs on
/// time and `weak` references read `nil` exactly as without the recorder; an object deinitialized
/// but still held by `unowned` references keeps its record until the runtime frees it.
///
/// Not covered in-process: modules loaded with `dlopen` after installation, and code that calls a
/// `free` it found with `dlsym`. Their frees of recorded objects go unseen.
///
/// Linux only (x86_64 and arm64).
public enum Recorder {
    /// The number of frames recorded per allocation unless the caller asks otherwise
    /// (`LG_FRAMES_DEFAULT` of the preload contract).
    public static let defaultMaxFrames = Int(LG_FRAMES_DEFAULT)

    /// The most frames ``install(maxFrames:)`` accepts (`LG_FRAMES_LIMIT`).
    public static let maxFramesLimit = Int(LG_FRAMES_LIMIT)

    /// Installs the allocation hook, recording up to `maxFrames` return addresses per allocation
    /// (0 records no stacks).
    ///
    /// Idempotent: installing again only changes `maxFrames`. On a runtime that cannot be hooked
    /// safely this throws and changes nothing; it never crashes the program.
    ///
    /// - Throws: ``RecorderError`` saying why the hook was not installed.
    public static func install(maxFrames: Int = defaultMaxFrames) throws(RecorderError) {
        guard (0...maxFramesLimit).contains(maxFrames) else {
            throw RecorderError(
                code: .invalidArgument,
                message: "At most \(maxFramesLimit) frames can be recorded per allocation, not \(maxFrames).")
        }
        let capacity = 512
        var message = [CChar](repeating: 0, count: capacity)
        let status = message.withUnsafeMutableBufferPointer { buffer in
            lg_install(UInt32(maxFrames), buffer.baseAddress, capacity)
        }
        guard status != 0 else { return }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        throw RecorderError(code: RecorderError.Code(status: status), message: text)
    }

    /// Whether the allocation hook is installed.
    public static var isInstalled: Bool { lg_is_installed() != 0 }

    /// Calls `body` with a snapshot of every live tracked object, sorted by address, while the heap
    /// is frozen.
    ///
    /// For the duration of `body`: the current thread's allocations are not recorded (so `body` may
    /// run any Swift code), other threads that allocate or free a recorded object wait, and the
    /// current thread's own frees of recorded objects are deferred until `body` returns — so no
    /// recorded object's memory is freed and `body` may read the memory of every record. The heap
    /// is unfrozen when `body` returns or throws. Before installation the snapshot is empty.
    ///
    /// A record whose object was deinitialized but is still held by `unowned` references stays in
    /// the snapshot (its memory is valid); `swift_isDeallocating` tells it from a live object.
    ///
    /// `body` must not wait for another thread that may allocate or release an object: that thread
    /// waits for `body`.
    ///
    /// - Complexity: O(*n* log *n*) for *n* tracked objects, plus `body`.
    public static func withFrozenHeap<R>(
        _ body: (UnsafeBufferPointer<AllocationRecord>) throws -> R
    ) rethrows -> R {
        var records: UnsafeMutablePointer<lg_record>?
        let count = lg_freeze(&records)
        defer { lg_unfreeze(records) }
        return try body(UnsafeBufferPointer(start: records, count: records == nil ? 0 : count))
    }

    /// Like ``withFrozenHeap(_:)``, but `body` gets the tracked objects' addresses only, ascending:
    /// 8 bytes per object instead of a 32-byte record. Inside `body`, ``frozenRecord(at:)`` gives the
    /// whole record of any of them (its metadata is the object's own first word).
    ///
    /// The same rules hold as for ``withFrozenHeap(_:)``: the memory of every object stays readable
    /// until `body` returns, and `body` must not wait for a thread that may allocate or free.
    ///
    /// - Complexity: O(*n*) for *n* tracked objects, plus `body`.
    public static func withFrozenObjects<R>(_ body: (UnsafeBufferPointer<UInt>) throws -> R) rethrows -> R {
        var objects: UnsafeMutablePointer<UInt>?
        let count = lg_freeze_objects(&objects)
        defer { lg_unfreeze_objects(objects) }
        return try body(UnsafeBufferPointer(start: objects, count: objects == nil ? 0 : count))
    }

    /// Calls `body` while the heap is frozen, as ``withFrozenObjects(_:)`` does, without the snapshot of
    /// every tracked address: for reading a few objects by address (``frozenRecord(at:)``), where the
    /// snapshot would be most of the freeze. The same rules hold for `body`.
    ///
    /// - Complexity: O(1), plus `body` (O(*n*) when another copy of LeakGraph owns the hook and has no
    ///   freeze without a snapshot).
    public static func whileFrozen<R>(_ body: () throws -> R) rethrows -> R {
        guard lg_freeze_only() != 0 else { return try withFrozenObjects { _ in try body() } }
        defer { lg_unfreeze_only() }
        return try body()
    }

    /// The record of the tracked object at `address`, or `nil` when it is not tracked. Only valid
    /// inside ``withFrozenObjects(_:)`` or ``withFrozenHeap(_:)`` (`nil` outside them).
    ///
    /// - Complexity: O(1).
    public static func frozenRecord(at address: UInt) -> AllocationRecord? {
        var record = lg_record()
        return lg_frozen_record(address, &record) != 0 ? record : nil
    }

    /// Calls `body` without recording the current thread's allocations.
    ///
    /// Other threads are still recorded. Nestable. Use it around code that must not show up in the
    /// heap it inspects, such as a heap walk or its report.
    public static func ignoringCurrentThread<R>(_ body: () throws -> R) rethrows -> R {
        lg_thread_ignore_begin()
        defer { lg_thread_ignore_end() }
        return try body()
    }

    /// The return addresses of creation stack `id`, innermost first (the first is in the code that
    /// allocated). Empty for ``AllocationRecord/noStack`` or an unknown id.
    public static func stack(_ id: UInt32) -> [UInt] {
        var count = 0
        guard let frames = lg_stack(id, &count), count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: frames, count: count))
    }

    /// The recorder's counters.
    public static var statistics: RecorderStatistics {
        var stats = lg_stats_t()
        lg_stats(&stats)
        return RecorderStatistics(stats)
    }
}
