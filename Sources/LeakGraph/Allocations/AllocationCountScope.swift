import LeakGraphRecording
import LeakGraphReport

/// One allocation count: code run in the scope allocates into it, and ``finish()`` returns what it
/// made — by type and creation site, with what is still alive — the building block of
/// ``LeakChecker/countingAllocations(_:)-(()->R)``, `assertAllocations` and the `.allocationBudget`
/// trait.
///
/// ```swift
/// let count = try AllocationCountScope.open()
/// count.run { renderFeed() }
/// let profile = count.finish()   // profile.objects, profile.sites
/// ```
///
/// Objects are attributed as leak checks attribute them (`AllocationScope`): the allocations of the
/// task that runs ``run(_:)-(()->R)`` and of the tasks it creates (structured or `Task { }`; not
/// `Task.detached`), and, while this is the only open scope (or the innermost of one chain of nested
/// scopes), of threads that run no task (Dispatch, `Thread`). Tests running in parallel count only
/// their own. A count opened inside another scope (a budget inside a leak check) is nested in it: when
/// it finishes, the enclosing check gets what it made, and an enclosing count includes it. A leak check
/// nested inside a count keeps what it judged: the count includes those objects as made, but not as
/// alive at its end.
///
/// Nothing made before ``open(maxFrames:excludingTestLibraries:)`` or after ``finish()`` is counted; what a task the body
/// started makes after the body returned is counted until `finish()`.
public struct AllocationCountScope: Sendable, ScopedCheck {
    /// The allocation scope objects are stamped with.
    public let scope: AllocationScope
    /// Whether objects the test libraries made for themselves are left out (see
    /// `AllocationProfile/excludedObjects`).
    public let excludesTestLibraries: Bool

    /// Starts the recorder if it is not running (recording `maxFrames` frames per object; under
    /// `leakgraph run` it joins that recording), opens a scope and starts counting it.
    ///
    /// - Parameters:
    ///   - maxFrames: return addresses recorded per allocation when this call starts the recorder.
    ///   - excludingTestLibraries: leave out what XCTest and Swift Testing make for themselves while
    ///     the scope is current (on by default).
    /// - Throws: `RecorderError` when recording cannot start, 4,095 scopes are open, or the recording
    ///   this process forwards to cannot count (an older preloaded LeakGraph).
    public static func open(
        maxFrames: Int = Recorder.defaultMaxFrames, excludingTestLibraries: Bool = true
    ) throws(RecorderError) -> AllocationCountScope {
        let scope = try openScope(maxFrames: maxFrames, checks: "checks")
        guard scope.startCounting() else {
            scope.end()
            throw RecorderError(
                code: .unsupportedRuntime,
                message:
                    "The recording this process joins cannot count allocations (a preloaded LeakGraph without allocation counts)."
            )
        }
        return AllocationCountScope(scope: scope, excludesTestLibraries: excludingTestLibraries)
    }

    /// Runs `body` allocating into this scope.
    public func run<R>(_ body: () throws -> R) rethrows -> R {
        try scope.withCurrent(body)
    }

    /// Runs `body`, and the tasks it creates, allocating into this scope.
    public func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R
    {
        try await scope.withCurrent(isolation: isolation, body)
    }

    /// Stops counting, closes the scope and returns what it made: objects and bytes by type and
    /// creation site, and of them what is alive now.
    ///
    /// What is alive is read first (a pass over the recorded objects while the heap is frozen), then the
    /// counts; the current thread's own allocations meanwhile are not recorded.
    public func finish() -> AllocationProfile {
        let (made, alive) = Recorder.ignoringCurrentThread {
            () -> ([AllocationCountRow], [(metadata: UInt, stack: UInt32, size: Int)]) in
            let id = scope.id
            let alive = Recorder.withFrozenHeap { records in
                records.filter { $0.scope == id }.map {
                    (metadata: UInt($0.metadata), stack: $0.stack_id, size: Int($0.size))
                }
            }
            let made = scope.stopCounting()
            scope.end(givingObjectsToParent: true)
            return (made, alive)
        }
        return AllocationSiteNaming.profile(made: made, alive: alive, excludingTestLibraries: excludesTestLibraries)
    }

    /// Stops counting and closes the scope, returning nothing.
    public func cancel() {
        Recorder.ignoringCurrentThread {
            _ = scope.stopCounting()
            scope.end(givingObjectsToParent: true)
        }
    }

    /// Runs `body` in this scope and finishes: the body's value and what it made. When `body`
    /// throws, the scope is closed uncounted and the error rethrown.
    public func count<R>(_ body: () throws -> R) rethrows -> (value: R, allocations: AllocationProfile) {
        (try runOrCancel(body), finish())
    }

    /// Runs `body` (and the tasks it creates) in this scope and finishes: the body's value and what it
    /// made. When `body` throws, the scope is closed uncounted and the error rethrown.
    public func count<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> (value: R, allocations: AllocationProfile) {
        (try await runOrCancel(isolation: isolation, body), finish())
    }
}

extension LeakChecker {
    /// Runs `body` and returns its value and what it allocated: every Swift heap object made by `body`
    /// (and the tasks it started), by type and creation site, with their bytes and how many were
    /// still alive when it returned.
    ///
    /// ```swift
    /// let (widgets, allocations) = try LeakChecker.countingAllocations { makeWidgets(100) }
    /// print(allocations.objects)                      // 101: 100 Widgets and the array's storage
    /// print(allocations.objects(ofType: "Widget"))    // 100
    /// ```
    ///
    /// The same body gives the same counts every run, apart from what runs once per process (a lazy
    /// global's first use). Objects XCTest and Swift Testing make for themselves while the body runs
    /// (an `expectation`, a recorded issue) are left out (`AllocationProfile/excludedObjects`);
    /// LeakGraph makes none inside the body. See ``AllocationCountScope`` for which objects belong to
    /// the body when other code runs at the same time.
    ///
    /// - Throws: `RecorderError` when recording cannot start; what `body` throws (then nothing is
    ///   counted).
    public static func countingAllocations<R>(_ body: () throws -> R) throws -> (
        value: R, allocations: AllocationProfile
    ) {
        try AllocationCountScope.open().count(body)
    }

    /// Runs `body` and returns its value and what it, and the tasks it started, allocated (see
    /// ``countingAllocations(_:)-(()->R)``).
    public static func countingAllocations<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async throws -> (value: R, allocations: AllocationProfile) {
        try await AllocationCountScope.open().count(isolation: isolation, body)
    }
}
