import Foundation
import LeakGraph
import LeakGraphReport
import LeakGraphTesting
import Synchronization
import Testing

/// Objects a static observer list keeps, for the watches below.
final class WatchHub: @unchecked Sendable {
    static let shared = WatchHub()
    var observers: [WatchObserver] = []
}

final class WatchObserver {
    let handler: () -> Void
    init(handler: @escaping () -> Void) { self.handler = handler }
}

final class WatchedController {
    var refreshes = 0

    /// Registers an observer with the shared hub; `weakly` captures `[weak self]`.
    func subscribe(weakly: Bool) {
        if weakly {
            WatchHub.shared.observers.append(WatchObserver { [weak self] in self?.refreshes += 1 })
        } else {
            WatchHub.shared.observers.append(WatchObserver { self.refreshes += 1 })
        }
    }
}

final class WatchedNode {
    var next: WatchedNode?
}

@Suite("assertDeallocated and deallocation watches", .serialized)
struct AssertDeallocatedTests {
    @Test("an object kept by a static observer list fails, naming the global and every step to it")
    func keptByGlobal() async {
        let line = #line + 2
        await withKnownIssue {
            await assertDeallocated(within: .milliseconds(200)) {
                let controller = WatchedController()
                controller.subscribe(weakly: false)
                return controller
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == line
                && text.contains("WatchedController (0x")
                && text.contains("was not deallocated within 200 ms")
                && text.contains("static WatchHub.shared → observers[0] → handler (closure) → WatchedController")
                && text.contains("held by global `static LeakGraphTestingTests.WatchHub.shared")
        }
        WatchHub.shared.observers.removeAll()
    }

    @Test("an object released in time passes, also when released asynchronously before the deadline")
    func releasedInTime() async {
        await assertDeallocated {
            let controller = WatchedController()
            controller.subscribe(weakly: true)
            return controller
        }
        let holder = LateRelease()
        await assertDeallocated(within: .seconds(5)) {
            let controller = WatchedController()
            holder.keep(controller, for: .milliseconds(100))
            return controller
        }
        WatchHub.shared.observers.removeAll()
    }

    @Test("an object in a cycle nothing reaches is reported leaked, with no chain")
    func leakedCycle() async throws {
        try LeakChecker.startRecording()
        let watch = LeakChecker.watchDeallocation(of: makeWatchedCycle(), within: .milliseconds(50))
        let failure = try #require(await watch.wait())
        #expect(failure.isLeaked)
        #expect(failure.retainers == nil)
        #expect(failure.description.contains("It is leaked"))
    }

    @Test("expectDeallocation calls back with the chain when the object outlives its time")
    func expectDeallocationCallsBack() async throws {
        try LeakChecker.startRecording()
        let received = Mutex<DeallocationFailure?>(nil)
        let controller = WatchedController()
        controller.subscribe(weakly: false)
        let watch = LeakChecker.expectDeallocation(of: controller, within: .milliseconds(50)) { failure in
            received.withLock { $0 = failure }
        }
        _ = await watch.wait()
        // The callback comes from the watch's own task once its search is done: wait for it (a
        // loaded machine can take a while), at most 10 s.
        let deadline = ContinuousClock.now + .seconds(10)
        while received.withLock({ $0 }) == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let failure = try #require(received.withLock { $0 })
        #expect(failure.retainers?.holder.kind == .global)
        #expect(failure.retainers?.links.map(\.label) == [nil, "observers", "[0]", "handler (closure)"])
        WatchHub.shared.observers.removeAll()
        _ = controller
    }
}

extension AssertDeallocatedTests {
    @Test("scanForHolder: false gives the same chain without naming its root's holder (no thread is stopped)")
    func withoutHolderScan() async throws {
        try LeakChecker.startRecording()
        let controller = WatchedController()
        controller.subscribe(weakly: false)
        let watch = LeakChecker.watchDeallocation(of: controller, within: .milliseconds(50), scanForHolder: false)
        let failure = try #require(await watch.wait())
        #expect(failure.retainers?.holder.kind == .unknown)
        #expect(failure.retainers?.links.map(\.label) == [nil, "observers", "[0]", "handler (closure)"])
        WatchHub.shared.observers.removeAll()
        _ = controller
    }
}

/// Keeps an object for a while, then releases it on another thread.
final class LateRelease: @unchecked Sendable {
    private let lock = NSLock()
    private var object: AnyObject?

    func keep(_ object: AnyObject, for delay: DispatchTimeInterval) {
        lock.withLock { self.object = object }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.lock.withLock { self.object = nil } }
    }
}

@inline(never)
func makeWatchedCycle() -> WatchedNode {
    let a = WatchedNode()
    let b = WatchedNode()
    a.next = b
    b.next = a
    return a
}
