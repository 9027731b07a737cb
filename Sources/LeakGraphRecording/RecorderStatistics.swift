import CLeakGraphHook

/// Counters describing the recorder's work so far.
///
/// Read without stopping other threads: while they allocate, the figures are approximate.
public struct RecorderStatistics: Sendable, Hashable {
    /// Allocations recorded.
    public var allocations: UInt64
    /// Allocations that passed through unrecorded because their thread was ignored (for example the
    /// heap walk's own allocations).
    public var ignoredAllocations: UInt64
    /// Records held now: live objects plus dead ones not yet swept.
    public var records: UInt64
    /// Dead objects whose memory the recorder has released.
    public var zombiesReleased: UInt64
    /// Distinct creation stacks stored.
    public var distinctStacks: UInt64
    /// Sweeps of the per-thread nurseries of young records.
    public var nurserySweeps: UInt64
    /// Sweeps of the shared table of older records.
    public var tableSweeps: UInt64
    /// The Swift runtime's version, `major << 16 | minor << 8 | patch` (0 before installation).
    public var runtimeVersion: UInt32
    /// Whether the Swift 6.3 retain-adapter workaround is in place.
    public var retainAdapterReplaced: Bool

    init(_ stats: lg_stats_t) {
        allocations = stats.allocations
        ignoredAllocations = stats.ignored
        records = stats.records
        zombiesReleased = stats.zombies_released
        distinctStacks = stats.stacks
        nurserySweeps = stats.nursery_sweeps
        tableSweeps = stats.table_sweeps
        runtimeVersion = stats.runtime_version
        retainAdapterReplaced = stats.retain_adapter_replaced != 0
    }
}
