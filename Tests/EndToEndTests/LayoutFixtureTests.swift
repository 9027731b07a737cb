import LeakGraphModel
import LeakGraphReport
import Testing

// Issue 12, items 4 and 5: layouts read from their metadata (InlineArray, extended existentials), and
// layouts no metadata describes, named in the diagnostics rather than missed silently.

@Suite("Reference kinds: inline arrays, extended existentials, unread wrappers", .timeLimit(.minutes(10)))
struct LayoutFixtureTests {
    @Test("InlineArray elements and `any Repository<Product>` / `any Cache<Int>` values are read", arguments: Optimization.allCases)
    func inlineArraysAndExtendedExistentials(_ optimization: Optimization) async throws {
        let repository = "any Fixture.Repository<Self.Fixture.Repository.Item == Fixture.Product>"
        let report = try await checkKindFixture(
            "InlineArrayExtendedExistentials", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Catalog", "(box)"]),
                CycleShape(members: ["Fixture.Catalog", "(box)"]),
                CycleShape(members: ["Fixture.Catalog", "Fixture.ProductCache"]),
                CycleShape(members: ["Fixture.Catalog"]),
            ]),
            edges: [
                "(box) —value.catalog→ Fixture.Catalog",
                "(box) —value.catalog→ Fixture.Catalog",
                "Fixture.Catalog —repository (\(repository) as Fixture.ProductRepository, boxed)→ (box)",
                "Fixture.Catalog —archive (\(repository) as Fixture.LargeRepository, boxed)→ (box)",
                "Fixture.Catalog —cache→ Fixture.ProductCache",
                "Fixture.ProductCache —catalog→ Fixture.Catalog",
                "Fixture.Catalog —pinned[1]→ Fixture.Catalog",
            ])
        #expect(report?.diagnostics == [])
    }

    @Test("Noncopyable structs of the program's own, ManagedBuffer elements and key path arguments are named as not read, never a false leak", arguments: Optimization.allCases)
    func unreadWrappers(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("UnreadWrappers", optimization).path
        // The exact walk alone (no holder scan, which finds these cycles through raw words: below).
        let exact = ["LEAKGRAPH_ORPHAN_SCAN": "0"]
        async let leakRun = LeakgraphRun.run(program, ["leak"], environment: exact)
        let fixed = try await LeakgraphRun.run(program, ["fixed"])
        let leaking = try await leakRun
        // The cycles are real but run through memory no metadata describes: no report, and each is named.
        expectNoLeaks(leaking, program: program, mode: "leak")
        let diagnostics = leaking.report?.diagnostics ?? []
        #expect(
            Set(diagnostics.filter { !$0.typeName.hasPrefix("Swift.KeyPath") }) == [
                WalkDiagnostic(
                    typeName: "Fixture.EventBus",
                    reason: "subscribers: field type Fixture.SubscriberList is not Copyable and not a type LeakGraph knows the layout of",
                    objectCount: 1),
                WalkDiagnostic(
                    typeName: "Fixture.Pool",
                    reason: "tail-allocated elements of type Fixture.Slot are not read (ManagedBuffer: how many are initialized only the program knows)",
                    objectCount: 1),
            ])
        // The private index type's name carries the file's discriminator, which depends on where it is built.
        let keyPath = diagnostics.filter { $0.typeName.hasPrefix("Swift.KeyPath") }
        #expect(keyPath.map(\.typeName) == ["Swift.KeyPath<Fixture.Store, Swift.Int>"])
        #expect(keyPath.first?.objectCount == 1)
        #expect(
            keyPath.first?.reason.hasPrefix("captured subscript arguments of a key path are not read (index types 7Fixture6Ticket") == true,
            "\(keyPath)")
        // Each names where one of its objects was made (the function that made the closure, for a context).
        #expect(
            Set((leaking.report?.diagnostics ?? []).compactMap(\.site).map { $0.split(separator: " ").first.map(String.init) ?? $0 })
                == ["main.swift:63", "main.swift:73", "main.swift:88"] || optimization == .release,
            "\(leaking.report?.diagnostics.map { $0.site ?? "-" } ?? [])")
        #expect((leaking.report?.diagnostics ?? []).allSatisfy { $0.site?.contains("main.swift") == true })
        #expect(leaking.text?.contains("(1 object; one made at main.swift:") == true)
        expectNoLeaks(fixed, program: program, mode: "fixed")
        #expect(fixed.report?.diagnostics == [])
    }

    @Test("with the holder scan, the cycles through a Mutex's contents and a ManagedBuffer's elements are found, closed by raw pointers",
          arguments: Optimization.allCases)
    func unreadWrappersScanned(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("UnreadWrappers", optimization).path
        let run = try await LeakgraphRun.run(program, ["leak"])
        let report = try #require(run.report, "\(run.result.summary)")
        expectConsistent(report)
        let shapes = cycleShapes(of: report)
        #expect(shapes[CycleShape(members: ["Fixture.EventBus", "(arrayStorage)", "Fixture.Subscriber"])] == 1, "\(shapes)")
        #expect(shapes[CycleShape(members: ["Fixture.Pool", "Fixture.Slot", "Fixture.Slot"])] == 1, "\(shapes)")
        // The key path's captured argument (a Ticket holding the Store) is found at -Onone; at -O a copy of the Store's address may be
        // left where the scan reads it (held: the scan only adds proof).
        let others = shapes.keys.filter { !$0.members.keys.contains("Fixture.EventBus") && !$0.members.keys.contains("Fixture.Pool") }
        #expect(others.allSatisfy { $0 == CycleShape(members: ["Fixture.(private).Ticket", "Fixture.Store", "Swift.KeyPath<Fixture.Store, Swift.Int>"]) }, "\(shapes)")
        // The words no metadata describes close each cycle, named by field or offset.
        let raw = report.references.filter { $0.label.hasSuffix("(raw pointer)") }.map(\.label)
        #expect(raw.contains("subscribers (raw pointer)"), "\(raw)")
        #expect(report.leaks.allSatisfy { $0.proof.map { $0.retainCount == $0.inEdges.count } == true })
    }
}
