import CLeakGraphHook

/// Counters describing the recorder's work so far.
///
/// Read without stopping other threads: while they allocate, the figures are approximate.
public struct RecorderStatistics: Sendable, Hashable {
    /// How frees of recorded objects reach the recorder.
    public enum FreeInterception: Sendable, Hashable {
        /// Not installed.
        case none
        /// `libLeakGraphPreload.so` interposes `free` for the whole process (`leakgraph run`).
        case preloaded
        /// The `free` imports of the modules loaded at installation were patched (in-process
        /// recording); modules loaded later are not covered.
        case patchedImports(count: Int)
    }

    /// Allocations recorded.
    public var allocations: UInt64
    /// Allocations that passed through unrecorded because their thread was ignored (for example the
    /// heap walk's own allocations).
    public var ignoredAllocations: UInt64
    /// Records held now: recorded objects whose memory has not been freed.
    public var records: UInt64
    /// Frees of recorded objects seen; each dropped its record.
    public var trackedFrees: UInt64
    /// Of those, frees made by the thread holding the frozen heap, performed when it unfroze.
    public var deferredFrees: UInt64
    /// Distinct creation stacks stored.
    public var distinctStacks: UInt64
    /// Bytes the recorder holds for its records now (record slabs and resident address-map
    /// pages; creation stacks not included).
    public var recordBytes: UInt64
    /// How frees reach the recorder.
    public var freeInterception: FreeInterception
    /// The Swift runtime's version, `major << 16 | minor << 8 | patch` (0 before installation).
    public var runtimeVersion: UInt32
    /// Whether the Swift 6.3 retain-adapter workaround is in place.
    public var retainAdapterReplaced: Bool
    /// In-process recording: how many `swift_task_create` imports were pointed at the task hook, so
    /// that tasks are recorded where they are created (0 under `leakgraph run`, whose preloaded library
    /// interposes `swift_task_create` itself, and without the concurrency runtime).
    public var patchedTaskImports: Int

    init(_ stats: lg_stats_t) {
        allocations = stats.allocations
        ignoredAllocations = stats.ignored
        records = stats.records
        trackedFrees = stats.tracked_frees
        deferredFrees = stats.deferred_frees
        distinctStacks = stats.stacks
        recordBytes = stats.record_bytes
        switch stats.free_interception {
        case UInt32(LG_FREE_PRELOADED.rawValue): freeInterception = .preloaded
        case UInt32(LG_FREE_PATCHED_IMPORTS.rawValue):
            freeInterception = .patchedImports(count: Int(stats.patched_free_imports))
        default: freeInterception = .none
        }
        runtimeVersion = stats.runtime_version
        retainAdapterReplaced = stats.retain_adapter_replaced != 0
        patchedTaskImports = Int(stats.patched_task_imports)
    }
}
