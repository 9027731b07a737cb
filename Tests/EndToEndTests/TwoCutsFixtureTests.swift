import LeakGraphReport
import Testing

// Every cut named (issue 13): a root cycle that needs two references cut — a strong back reference
// and a closure capturing its owner — compiled at -Onone and -O and run end to end. Both cuts are
// named; applying one leaves a leak, applying both frees everything.

@Suite("A cycle that needs two cuts", .timeLimit(.minutes(10)))
struct TwoCutsFixtureTests {
    @Test("both cuts named (suspect and Also cut); one applied still leaks; both applied: clean", arguments: Optimization.allCases)
    func twoCuts(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("TwoCuts", optimization).path
        async let leaking = LeakgraphRun.run(program, ["leak"])
        async let oneCut = LeakgraphRun.run(program, ["weakDelegate"])
        let fixed = try await LeakgraphRun.run(program, ["fixed"])

        let leak = try #require(try await leaking.report)
        #expect(leak.cycles.count == 1)
        let cycle = try #require(leak.cycles.first)
        #expect(Set(cycle.members.map { leak.leaks[$0].type }) == ["Fixture.Editor", "Fixture.Helper"])
        let cuts = [cycle.suspect].compactMap { $0 } + (cycle.otherCuts ?? [])
        #expect(Set(cuts.map(\.label)) == ["onSave (closure)", "editor"], "\(cuts)")
        #expect(cuts.contains { $0.hint.contains("[weak self]") })
        #expect(cuts.contains { $0.hint.contains("weak var editor") })
        let text = try #require(try await leaking.text)
        #expect(text.contains("Suspect: Editor.onSave (closure)"))
        #expect(text.contains("Also cut: Helper.editor"))

        let partial = try #require(try await oneCut.report)
        #expect(partial.cycles.count == 1, "one cut applied: the closure loop still leaks")
        #expect(partial.cycles.first.map { $0.members.map { partial.leaks[$0].type } } == ["Fixture.Editor"])
        #expect(partial.cycles.first.map { $0.holds.map { partial.leaks[$0].type } } == ["Fixture.Helper"], "the helper is held by the editor")
        #expect(partial.cycles.first?.suspect?.label == "onSave (closure)")
        #expect(partial.cycles.first?.otherCuts == nil)

        #expect(fixed.report?.leaks.isEmpty == true, "\(fixed.result.summary)")
        #expect(fixed.result.status == 0)
    }
}
