import FoundationEssentials
import LeakGraphRecording
import LeakGraphReport
import LeakGraphSymbolication

/// One scoped leak check: code run in the scope allocates into it, and `finish()` reports the
/// objects it made that are leaked — the building block of `assertNoLeaks` and of
/// ``LeakChecker/checkingLeaks(_:_:)-(_,()->R)``.
///
/// ```swift
/// let scope = try LeakCheckScope.open()
/// scope.run { makeScreen().show() }
/// let report = scope.finish()
/// ```
///
/// Objects are attributed as `AllocationScope` says: the scope travels with the task that runs
/// ``run(_:)-(()->R)`` and the child tasks it creates; allocations made outside any task (Dispatch,
/// threads) belong to the scope only while it is the one open. So when scopes run one at a time
/// the attribution is exact; when they run in parallel (Swift Testing's default), an object made
/// in another scope's task is never attributed to this one.
public struct LeakCheckScope: Sendable, ScopedCheck {
    /// The allocation scope objects are stamped with.
    public let scope: AllocationScope
    /// The options of this check.
    public let options: LeakCheckOptions

    /// Starts the recorder if it is not running (objects allocated before that are not tracked: they
    /// are never reported, and what they reference counts as externally held; under `leakgraph run`
    /// it joins that recording) and opens a scope.
    ///
    /// - Throws: `RecorderError` when recording cannot start or 4,095 scopes are open.
    public static func open(_ options: LeakCheckOptions = LeakCheckOptions()) throws(RecorderError) -> LeakCheckScope {
        let scope = try openScope(maxFrames: options.maxFrames ?? Recorder.defaultMaxFrames, checks: "leak checks")
        return LeakCheckScope(scope: scope, options: options)
    }

    /// Runs `body` allocating into this scope.
    public func run<R>(_ body: () throws -> R) rethrows -> R {
        // With the orphan scan, the stack the body used is zeroed as soon as it returns: its dead
        // frames may hold copies of a pointer it dropped, which frames reusing that memory later
        // could keep for the scan to read (a missed orphan).
        defer { if options.scansForOrphans { HolderScan.scrubStack() } }
        return try scope.withCurrent(body)
    }

    /// Runs `body`, and the tasks it creates, allocating into this scope.
    public func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R
    {
        defer { if options.scansForOrphans { HolderScan.scrubStack() } }
        return try await scope.withCurrent(isolation: isolation, body)
    }

    /// Waits the settle period (a thread sleep), checks, confirms, and closes the scope.
    ///
    /// The check keeps the root cycles that hold an object of this scope and that the options do
    /// not ignore; when any is left, it checks again and keeps only the cycles whose objects are all
    /// still leaked with the same retain counts and references (`LeakReport/confirmed(by:)`).
    /// Known leaks of libraries stay in the report, marked
    /// (`LeakReport/Cycle/knownLibraryLeak`).
    public func finish() -> LeakReport {
        defer { scope.end() }
        if options.settle > .zero {
            PlainThreads.sleep(for: options.settle)
        }
        return options.scansForOrphans ? HolderScan.checking(confirmedReport) : confirmedReport()
    }

    /// Waits the settle period (a task sleep), checks, confirms, and closes the scope (as
    /// ``finish()``).
    public func finish() async -> LeakReport {
        defer { scope.end() }
        if options.settle > .zero {
            try? await Task.sleep(for: options.settle)
        }
        return options.scansForOrphans ? HolderScan.checking(confirmedReport) : confirmedReport()
    }

    /// Closes the scope without checking.
    public func cancel() {
        scope.end()
    }

    /// Runs `body` in this scope, then finishes the check: returns the body's value and the report.
    /// When `body` throws, the scope is closed unchecked and the error rethrown. With
    /// ``LeakCheckOptions/rerunsWithHistory`` and a leak, `body` runs once more in a scope of its own
    /// while the leaked cycles' types' retain histories are recorded, and the report is that run's (with
    /// store sites) when it leaked the same cycles; the value returned is the first run's.
    public func check<R>(_ body: () throws -> R) rethrows -> (value: R, report: LeakReport) {
        let value = try runOrCancel(body)
        let report = finish()
        let rerun = historyRerun(after: report)
        guard case .run = rerun else { return (value, report.replaced(after: rerun, byHistoryRun: nil)) }
        let second: Result<LeakReport, any Error>
        do {
            second = .success(try LeakCheckScope.open(options.withoutRerun).check(body).report)
        } catch {
            second = .failure(error)
        }
        return (value, report.replaced(after: rerun, byHistoryRun: second))
    }

    /// Runs `body` in this scope, then finishes the check (`finish() async`): returns the body's value
    /// and the report. When `body` throws, the scope is closed unchecked and the error rethrown. With
    /// ``LeakCheckOptions/rerunsWithHistory``, a leaking `body` runs once more, as in the synchronous
    /// ``check(_:)``.
    public func check<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> (value: R, report: LeakReport) {
        let value = try await runOrCancel(isolation: isolation, body)
        let report = await finish()
        let rerun = historyRerun(after: report)
        guard case .run = rerun else { return (value, report.replaced(after: rerun, byHistoryRun: nil)) }
        let second: Result<LeakReport, any Error>
        do {
            second = .success(
                try await LeakCheckScope.open(options.withoutRerun).check(isolation: isolation, body).report)
        } catch {
            second = .failure(error)
        }
        return (value, report.replaced(after: rerun, byHistoryRun: second))
    }

    /// The scope's report, confirmed by a second check when it is not empty
    /// (`LeakReport/confirmed(by:)`).
    private func confirmedReport() -> LeakReport {
        let first = scopedReport()
        guard !first.cycles.isEmpty else { return first }
        return first.confirmed(by: scopedReport(knownOrphans: first.orphanAddresses))
    }

    /// Creation stacks symbolized by earlier scoped checks of this process, by stack id. A leak stays
    /// leaked, so every later check finds the earlier checks' leaks again: with their stacks kept here,
    /// a check symbolizes only new stacks, and makes no symbolizer when there are none — its cost does
    /// not grow with the leaks earlier checks found (scripts/bench-scoped-checks).
    static let symbolizedStacks = SymbolizedStackCache(capacity: 8192)

    /// A whole check, restricted to the root cycles holding an object of this scope, less the ignored.
    private func scopedReport(knownOrphans: Set<UInt> = []) -> LeakReport {
        // Diagnostics are about the whole heap, not this scope: no symbolizer is made for their sites.
        let report = LeakChecker.measuredCheck(
            program: LeakReport.Program(path: "", arguments: [], exitStatus: 0), orphanScan: options.scansForOrphans,
            knownOrphans: knownOrphans, diagnosticSites: false, stacks: Self.symbolizedStacks
        ).report
        let inScope = report.leaks.map { leak in
            UInt(leak.address.dropFirst(2), radix: 16).map { AllocationScope.scopeID(of: $0) == scope.id } ?? false
        }
        return report.keepingCycles { cycle in
            !options.ignores(cycle, of: report)
                && (cycle.members + cycle.holds).contains { inScope.indices.contains($0) && inScope[$0] }
        }
    }
}

extension LeakChecker {
    /// Runs `body` in a ``LeakCheckScope`` and returns its value and the report of the objects
    /// **allocated inside `body`** that are leaked after it returned (see `LeakCheckScope.finish()`).
    ///
    /// - Throws: `RecorderError` when recording cannot start; what `body` throws (then nothing is
    ///   checked).
    public static func checkingLeaks<R>(
        _ options: LeakCheckOptions = LeakCheckOptions(), _ body: () throws -> R
    ) throws -> (value: R, report: LeakReport) {
        try LeakCheckScope.open(options).check(body)
    }

    /// Runs `body` in a ``LeakCheckScope`` and returns its value and the report of the objects
    /// allocated inside `body`, and the tasks it created, that are leaked after it returned.
    public static func checkingLeaks<R>(
        _ options: LeakCheckOptions = LeakCheckOptions(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async throws -> (value: R, report: LeakReport) {
        try await LeakCheckScope.open(options).check(isolation: isolation, body)
    }
}
