import LeakGraph
import LeakGraphTesting
import Testing

/// Classes whose runtime names differ from the names the heap walk gives them: a private class
/// (`(unknown context at $…)` in the runtime's name), a fileprivate one, a generic one and a nested one.
private final class PrivateScreen {}
fileprivate final class FileprivateScreen {}
final class GenericScreen<Model> {
    var model: Model?
}
enum Screens {
    final class Nested {
        private final class Inner {}
        static func makeInner() -> AnyObject { Inner() }
    }
}

/// What keeps the watched objects alive on purpose: a global list.
nonisolated(unsafe) private var keptScreens: [AnyObject] = []

/// `assertDeallocated` and `LeakChecker.expectDeallocation` find the watched object by identity, so the
/// kind of its class's name does not matter: kept alive, each fails; released, each passes.
@Suite("Watches find the object by identity", .serialized)
struct WatchIdentityTests {
    static let makers: [(String, @Sendable () -> AnyObject)] = [
        ("private", { PrivateScreen() }), ("fileprivate", { FileprivateScreen() }),
        ("generic", { GenericScreen<[String: Int]>() }), ("nested", { Screens.Nested() }),
        ("private nested", { Screens.Nested.makeInner() }),
    ]

    @Test("kept alive by a global: the watch fails, naming the global", arguments: 0..<5)
    func keptAlive(_ which: Int) async throws {
        try LeakChecker.startRecording()
        let (kind, make) = Self.makers[which]
        let watch = LeakChecker.watchDeallocation(of: {
            let object = make()
            keptScreens.append(object)
            return object
        }(), within: .milliseconds(20))
        let failure = try #require(await watch.wait(), "a \(kind) class passed while alive")
        #expect(!failure.isLeaked)
        #expect(failure.retainers?.summaryLine.contains("keptScreens") == true, "\(kind): \(failure.description)")
        keptScreens.removeAll()
    }

    @Test("released: the watch passes", arguments: 0..<5)
    func released(_ which: Int) async throws {
        try LeakChecker.startRecording()
        let watch = LeakChecker.watchDeallocation(of: Self.makers[which].1(), within: .milliseconds(20))
        #expect(await watch.wait() == nil)
    }

    @Test("assertDeallocated, sync and async, fails for a kept private class and passes for a released one")
    func assertions() async throws {
        await withKnownIssue {
            await assertDeallocated(within: .milliseconds(20)) {
                let screen = PrivateScreen()
                keptScreens.append(screen)
                return screen
            }
        } matching: { $0.comments.map(\.rawValue).joined().contains("was not deallocated within 20 ms") }
        keptScreens.removeAll()
        await assertDeallocated(within: .milliseconds(20)) { Screens.Nested() }
    }

    @Test("the synchronous assertDeallocated waits on the calling thread: fails for a kept generic class, passes for a released one")
    func synchronousAssertion() {
        withKnownIssue {
            assertDeallocated(within: .milliseconds(20)) {
                let screen = GenericScreen<Int>()
                keptScreens.append(screen)
                return screen
            }
        } matching: { $0.comments.map(\.rawValue).joined().contains("was not deallocated within 20 ms") }
        keptScreens.removeAll()
        assertDeallocated(within: .milliseconds(20)) { FileprivateScreen() }
    }
}
