import CLeakGraphHook

/// A span of a program's work whose allocations are stamped with one id, so that a check can tell
/// the objects that work made from every other object in the process: the unit of a per-test leak
/// check.
///
/// ``begin()`` opens a scope; code run inside ``withCurrent(_:)-(()->R)`` (and every child task it
/// creates, structured or `Task { }`, which inherit task-local values) allocates into it. An
/// allocation made outside any task (a Dispatch worker, a `Thread`) is stamped with the one open
/// scope when exactly one is open (tests run one at a time), and with none otherwise; one made in
/// a task that carries no scope (another test, a detached task) gets none. ``end(givingObjectsToParent:)`` closes the scope: its records lose the stamp (or take the enclosing scope's), so the id can be reused.
///
/// Up to 4,095 scopes can be open at once.
public struct AllocationScope: Sendable, Hashable {
    /// The hook's token: the scope id in the low 32 bits, the id's generation above.
    public let token: UInt64

    /// The most scopes (check and test scopes together) that can be in use at once.
    public static let idLimit = Int(LG_SCOPE_LIMIT)

    /// The id stamped on records of this scope (1…4,095); compare with ``scopeID(of:)``.
    public var id: UInt32 { UInt32(truncatingIfNeeded: token) }

    /// The scope the current task (or thread) allocates into, as a hook token (0 for none).
    @TaskLocal static var currentToken: UInt64 = 0

    /// Opens a scope, nested in the current task's scope when it has one (see ``parentToken``).
    /// Returns `nil` when the recorder is not installed or 4,095 scopes are open.
    ///
    /// A nested scope (a budget inside a leak check, a check inside a checked test) takes the objects
    /// made while it is current; ``end(givingObjectsToParent:)`` decides whether they then go back to
    /// the scope it is nested in. While the open scopes form one chain, an allocation no task
    /// attributes goes to the innermost.
    public static func begin() -> AllocationScope? {
        registerSource
        let token = lg_scope_begin_within(parentToken)
        return token == 0 ? nil : AllocationScope(token: token)
    }

    /// The token of the scope a scope opened now is nested in: the current task's (or thread's)
    /// scope, 0 for none.
    public static var parentToken: UInt64 { currentToken }

    /// Closes the scope (once; later calls do nothing). Its objects stay recorded, unscoped — or, with
    /// `givingObjectsToParent`, stamped with the scope it was nested in when that one is still open (an
    /// allocation count leaves what it counted to the leak check around it; a leak check, which judged
    /// its objects, does not hand them to another).
    public func end(givingObjectsToParent: Bool = false) {
        if givingObjectsToParent {
            lg_scope_end_into_parent(token)
        } else {
            lg_scope_end(token)
        }
    }

    /// Runs `body` with its allocations, and those of the tasks it creates, stamped with this scope.
    public func withCurrent<R>(_ body: () throws -> R) rethrows -> R {
        try Self.$currentToken.withValue(token, operation: body)
    }

    /// Runs `body` with its allocations, and those of the tasks it creates, stamped with this scope.
    public func withCurrent<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        try await Self.$currentToken.withValue(token, operation: body, isolation: isolation)
    }

    /// The id of the scope the object at `address` was allocated in: 0 when it is not tracked or was
    /// made outside any open scope.
    public static func scopeID(of address: UInt) -> UInt32 {
        lg_scope_of(address)
    }

    // MARK: Test scopes

    /// Opens a test scope labelled `label` (`leakgraph test`'s observer opens one per test): the
    /// objects the test source (``setTestSource(_:)``) attributes to it are stamped with it, and keep
    /// the stamp until the report at exit (see `lg_test_scope_begin`). `nil` when the recorder is not
    /// installed here (or forwards to another copy of LeakGraph).
    public static func beginTest(label: String) -> AllocationScope? {
        let token = lg_test_scope_begin(label)
        return token == 0 ? nil : AllocationScope(token: token)
    }

    /// Sets the function the hook asks which test an allocation belongs to when no check scope claims
    /// it: it returns a ``token`` from ``beginTest(label:)``, or 0 (`nil`: none).
    public static func setTestSource(_ source: (@convention(c) () -> UInt64)?) {
        lg_set_test_scope_source(source)
    }

    /// The label of test scope `id` (an id from ``scopeID(of:)``), or `nil` when `id` is not a test scope.
    public static func testLabel(ofScope id: UInt32) -> String? {
        lg_scope_label(id).map { String(cString: $0) }
    }

    /// How many test scopes were recycled because every id was in use: their objects read as made
    /// outside any test.
    public static var recycledTestScopes: Int { Int(lg_test_scopes_recycled()) }

    /// Points the hook at ``currentToken`` once. The task-local's lazy global is initialized first:
    /// that allocates, and the hook must never run into the initializer it is called from.
    private static let registerSource: Void = {
        _ = AllocationScope.currentToken
        lg_set_scope_source {
            let token = AllocationScope.currentToken
            if token != 0 { return token }
            return withUnsafeCurrentTask { $0 == nil } ? UInt64(LG_SCOPE_SOLE) : 0
        }
    }()
}
