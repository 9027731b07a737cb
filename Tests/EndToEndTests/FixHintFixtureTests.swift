import LeakGraphReport
import Testing

// Fix hints that compile where they are written: `[weak self]` only for a closure formed in a method of
// the class it captures (its context object's creation site says where it was formed); a closure formed
// in a free function or a struct's method gets its capture made weak in words. At -Onone and -O.

@Suite("Fix hints that compile", .timeLimit(.minutes(10)))
struct FixHintFixtureTests {
    @Test("[weak self] for a closure formed in the class's method, never for one formed in a free function or a struct's method",
          arguments: Optimization.allCases)
    func closureHints(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("ClosureHints", optimization).path
        var hints: [String: String] = [:]
        for mode in ["method", "freeFunction", "structMethod"] {
            let run = try await LeakgraphRun.run(program, [mode])
            #expect(run.result.status == LeakgraphRun.leakStatus, "\(mode): \(run.result.summary)")
            let report = try #require(run.report, "\(mode): \(run.result.summary)")
            expectConsistent(report)
            try #require(report.cycles.count == 1, "\(mode): \(report.cycles.count) root cycles")
            let suspect = try #require(report.cycles[0].suspect, "\(mode)")
            #expect(suspect.label == "onSave (closure)", "\(mode)")
            hints[mode] = suspect.hint
        }
        #expect(hints["method"] == "capture self weakly: `{ [weak self] in … }`", "\(hints)")
        for mode in ["freeFunction", "structMethod"] {
            let hint = try #require(hints[mode])
            #expect(!hint.contains("[weak self]"), "\(mode): \(hint)")
            #expect(hint.hasPrefix("make the closure's capture of the `Editor` weak"), "\(mode): \(hint)")
        }
        #expect(hints["freeFunction"]?.contains("in `wire(editor:stamp:)`, is not the `Editor`") == true, "\(hints)")
        // At -O the struct's method and the free function compile to the same code and are merged: the
        // context is made in `merged wire(editor:stamp:)`, whose `self` is not the Editor either.
        #expect(
            hints["structMethod"]?.contains(optimization == .debug ? "in `bind()`, is not the `Editor`" : ", is not the `Editor`") == true,
            "\(hints)")
        let fixed = try await LeakgraphRun.run(program, ["fixed"])
        expectNoLeaks(fixed, program: program, mode: "fixed")
    }
}
