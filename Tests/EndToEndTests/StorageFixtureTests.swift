import LeakGraphModel
import LeakGraphReport
import Testing

// Issue 21, items 2–4: cycles through Mutex, AtomicLazyReference, a private NotificationCenter, a
// ManagedBuffer that declares its count and a key path's captured argument, found in debug and release;
// the traps (weak back references, removeObserver, the global centre, another store) report nothing.

@Suite("Reference kinds: Synchronization storage, NotificationCenter, ManagedBuffer counts, key path arguments", .timeLimit(.minutes(10)))
struct StorageFixtureTests {
    @Test("each cycle through storage no field record describes is found; each trap is silent", arguments: Optimization.allCases)
    func storageCycles(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "StorageCycles", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.EventBus", "(arrayStorage)", "Fixture.Subscriber"]),
                CycleShape(members: ["Fixture.Image", "Fixture.Histogram"]),
                CycleShape(
                    members: [
                        "Fixture.Newsroom", "FoundationEssentials.NotificationCenter", "(dictionaryStorage)",
                        "(dictionaryStorage)", "(dictionaryStorage)", "(closureContext)",
                    ],
                    holds: ["(extension in Foundation):FoundationEssentials.NotificationCenter._NSNotificationObserverToken"]),
                CycleShape(members: ["Fixture.ConnectionPool", "Fixture.Connection", "Fixture.Connection"]),
                CycleShape(members: ["Fixture.Store", "Swift.KeyPath<Fixture.Store, Swift.Int>"]),
            ]))
        guard let report else { return }
        let edges = edgeList(report)
        for edge in [
            "Fixture.EventBus —subscribers→ (arrayStorage)", "Fixture.EventBus —lastSubscriber→ Fixture.Subscriber [unmanaged]",
            "Fixture.Image —histogram→ Fixture.Histogram", "FoundationEssentials.NotificationCenter —registrar→ (dictionaryStorage)",
            "(closureContext) —capture[0] (closure)→ Fixture.Newsroom", "Fixture.ConnectionPool —[0]→ Fixture.Connection",
            "Fixture.ConnectionPool —[1]→ Fixture.Connection", "Swift.KeyPath<Fixture.Store, Swift.Int> —argument→ Fixture.Store",
        ] {
            #expect(edges.contains(edge), "missing \(edge) in \(edges)")
        }
        // The global centre's observer (a Reporter) is held, not leaked; nothing here is left unread.
        #expect(!report.leaks.contains { $0.type.hasSuffix("Reporter") })
        #expect(report.diagnostics.filter { $0.typeName.hasPrefix("Fixture.") || $0.typeName.contains("NotificationCenter") } == [])
    }
}
