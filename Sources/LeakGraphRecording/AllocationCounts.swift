import CLeakGraphHook

/// Objects of one type metadata made at one creation stack, as the hook counted them: the C hook's
/// `lg_count_row`. Rows are per thread: one (metadata, stack) may come in several rows, each a part.
///
/// Fields: `metadata` (the objects' type metadata), `objects` (how many were made), `bytes` (their
/// sizes as the runtime asked for them, summed) and `stack_id` (the creation stack for
/// ``Recorder/stack(_:)``, or ``AllocationRecord/noStack``).
public typealias AllocationCountRow = lg_count_row

extension AllocationCountRow {
    /// The creation stack's id, or `nil` when the row has none.
    public var stackID: UInt32? { stack_id == AllocationRecord.noStack ? nil : stack_id }
}

extension AllocationScope {
    /// Starts counting what this scope makes — the objects stamped with it and with the scopes nested
    /// in it — until ``stopCounting()``: objects made and bytes per type and creation stack, also of
    /// the objects that die meanwhile. Returns `false` when the scope is not open or is counted already.
    ///
    /// While no scope is counted (and no profile runs) the allocation hook pays one relaxed load for
    /// this; while one is, each recorded allocation also adds to its thread's count table.
    public func startCounting() -> Bool {
        lg_count_begin(token) != 0
    }

    /// Stops counting and returns what the scope made since ``startCounting()``. The scope this one is
    /// nested in, when counted too, gets the same counts. Call it before ``end()``.
    public func stopCounting() -> [AllocationCountRow] {
        var rows: UnsafeMutablePointer<lg_count_row>?
        let count = lg_count_end(token, &rows)
        defer { lg_count_rows_free(rows, count) }
        return Array(UnsafeBufferPointer(start: rows, count: rows == nil ? 0 : count))
    }
}

extension Recorder {
    /// Starts the allocation profile: from now on every recorded allocation of the process is counted
    /// by type metadata and creation stack (``allocationProfile()``). Returns `false` when the recorder
    /// is not installed. There is no stop: the profile runs until the process ends.
    public static func startAllocationProfile() -> Bool {
        lg_count_profile_start() != 0
    }

    /// Whether the allocation profile runs (``startAllocationProfile()``, or `leakgraph run
    /// --allocations` in the preloaded copy this process forwards to).
    public static var isProfilingAllocations: Bool { lg_count_profile_running() != 0 }

    /// What the process made since ``startAllocationProfile()``: objects and bytes per type metadata and
    /// creation stack (rows per thread; see ``AllocationCountRow``). Empty when no profile runs.
    public static func allocationProfile() -> [AllocationCountRow] {
        var rows: UnsafeMutablePointer<lg_count_row>?
        let count = lg_count_profile_rows(&rows)
        defer { lg_count_rows_free(rows, count) }
        return Array(UnsafeBufferPointer(start: rows, count: rows == nil ? 0 : count))
    }
}
