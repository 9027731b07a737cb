import Logging

extension LeakChecker {
    /// Watches `object`, which should be deallocated within `timeLimit` (a view controller just
    /// dismissed, a request's context once it has answered). When it is still alive at the deadline,
    /// `onAlive` receives why (``DeallocationFailure``: the chain of strong references from a root to
    /// it); by default a warning is logged with the chain (swift-log, label `LeakGraph.watch`).
    ///
    /// Recording must run (``startRecording(maxFrames:)`` or `leakgraph run`) from before `object` was
    /// allocated. The watch holds the object weakly; drop your own references after this call.
    ///
    /// When the object is still alive, naming what holds the chain's root (a global by symbol, a
    /// thread's stack) runs the holder scan, which stops the program's other threads for a moment;
    /// `scanForHolder: false` leaves the holder unnamed and stops no thread (a latency-sensitive server).
    ///
    /// ```swift
    /// LeakChecker.expectDeallocation(of: controller, within: .seconds(2))
    /// navigation.pop()   // the controller should go now
    /// ```
    @discardableResult
    public static func expectDeallocation(
        of object: AnyObject, within timeLimit: Duration = .seconds(2), scanForHolder: Bool = true,
        onAlive: (@Sendable (DeallocationFailure) -> Void)? = nil
    ) -> DeallocationWatch {
        let watch = DeallocationWatch(object, within: timeLimit, scanForHolder: scanForHolder)
        Task.detached {
            guard let failure = await watch.wait() else { return }
            if let onAlive {
                onAlive(failure)
            } else {
                Logger(label: "LeakGraph.watch").warning("\(failure.description)")
            }
        }
        return watch
    }

    /// A watch on `object` (see ``expectDeallocation(of:within:scanForHolder:onAlive:)``) that only checks
    /// when asked: ``DeallocationWatch/wait()`` waits for it and says why it is alive, if it is.
    public static func watchDeallocation(
        of object: AnyObject, within timeLimit: Duration = .seconds(2), scanForHolder: Bool = true
    ) -> DeallocationWatch {
        DeallocationWatch(object, within: timeLimit, scanForHolder: scanForHolder)
    }
}
