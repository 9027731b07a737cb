import LeakGraphRecording

/// What the scoped checks — a leak check (``LeakCheckScope``) and an allocation count
/// (``AllocationCountScope``) — decide alike, decided once: how a scope is opened (the recorder started
/// when it is not running, or joined) and what a body that throws leaves (the scope closed unchecked,
/// the error rethrown).
protocol ScopedCheck: Sendable {
    /// Runs `body` allocating into the check's scope.
    func run<R>(_ body: () throws -> R) rethrows -> R
    /// Runs `body`, and the tasks it creates, allocating into the check's scope.
    func run<R>(isolation: isolated (any Actor)?, _ body: () async throws -> R) async rethrows -> R
    /// Closes the scope without checking.
    func cancel()
}

extension ScopedCheck {
    /// Starts the recorder if it is not running (recording `maxFrames` frames per object; under
    /// `leakgraph run` it joins that recording) and opens an allocation scope.
    ///
    /// - Parameter checks: what runs in scopes, for the message when none is free (`leak checks`).
    /// - Throws: `RecorderError` when recording cannot start or 4,095 scopes are open.
    static func openScope(maxFrames: Int, checks: String) throws(RecorderError) -> AllocationScope {
        if !LeakChecker.isRecording {
            try Recorder.install(maxFrames: maxFrames)
        }
        guard let scope = AllocationScope.begin() else {
            throw RecorderError(
                code: .conflict, message: "No allocation scope is free: 4,095 \(checks) are running at once.")
        }
        return scope
    }

    /// Runs `body` in the scope; when it throws, closes the scope unchecked and rethrows.
    func runOrCancel<R>(_ body: () throws -> R) rethrows -> R {
        do {
            return try run(body)
        } catch {
            cancel()
            throw error
        }
    }

    /// Runs `body` (and the tasks it creates) in the scope; when it throws, closes the scope unchecked
    /// and rethrows.
    func runOrCancel<R>(isolation: isolated (any Actor)?, _ body: () async throws -> R) async rethrows -> R {
        do {
            return try await run(isolation: isolation, body)
        } catch {
            cancel()
            throw error
        }
    }
}
