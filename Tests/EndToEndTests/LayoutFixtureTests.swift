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

    @Test("Mutex contents, ManagedBuffer elements and key path arguments are named as not read, never a false leak", arguments: Optimization.allCases)
    func unreadWrappers(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("UnreadWrappers", optimization).path
        // The exact walk alone (no holder scan, which finds these cycles through raw words: below).
        let exact = ["LEAKGRAPH_ORPHAN_SCAN": "0"]
        async let leakRun = LeakgraphRun.run(program, ["leak"], environment: exact)
        let fixed = try await LeakgraphRun.run(program, ["fixed"])
        let leaking = try await leakRun
        // The cycles are real but run through memory no metadata describes: no report, and each is named.
        expectNoLeaks(leaking, program: program, mode: "leak")
        #expect(
            Set(leaking.report?.diagnostics ?? []) == [
                WalkDiagnostic(
                    typeName: "Fixture.EventBus", reason: "subscribers: field type is not Copyable: reflection gives no layout for it",
                    objectCount: 1),
                WalkDiagnostic(
                    typeName: "Fixture.Pool",
                    reason: "tail-allocated elements of type Fixture.Slot are not read (ManagedBuffer: how many are initialized only the program knows)",
                    objectCount: 1),
                WalkDiagnostic(
                    typeName: "Swift.KeyPath<Fixture.Store, Swift.Int>",
                    reason: "captured subscript arguments of a key path are not read (no metadata describes them)", objectCount: 1),
            ])
        // Each names where one of its objects was made (the function that made the closure, for a context).
        #expect(
            Set((leaking.report?.diagnostics ?? []).compactMap(\.site).map { $0.split(separator: " ").first.map(String.init) ?? $0 })
                == ["main.swift:58", "main.swift:68", "main.swift:83"] || optimization == .release,
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
        // The key path's captured argument is found at -Onone; at -O a copy of the Store's address may be
        // left where the scan reads it (held: the scan only adds proof).
        let others = shapes.keys.filter { !$0.members.keys.contains("Fixture.EventBus") && !$0.members.keys.contains("Fixture.Pool") }
        #expect(others.allSatisfy { $0 == CycleShape(members: ["Fixture.Store", "Swift.KeyPath<Fixture.Store, Swift.Int>"]) }, "\(shapes)")
        // The words no metadata describes close each cycle, named by field or offset.
        let raw = report.references.filter { $0.label.hasSuffix("(raw pointer)") }.map(\.label)
        #expect(raw.contains("subscribers (raw pointer)"), "\(raw)")
        #expect(report.leaks.allSatisfy { $0.proof.map { $0.retainCount == $0.inEdges.count } == true })
    }
}
