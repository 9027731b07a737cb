import LeakGraph
import Testing

/// Types only these tests allocate, so a check can be read for them alone.
private final class FacadeOwner {
    var helper: FacadeHelper?
}

private final class FacadeHelper {
    var owner: FacadeOwner?
    weak var weakOwner: FacadeOwner?
}

/// Makes an owner ⇄ helper pair; with `leak` the helper holds its owner strongly. Nothing escapes.
@inline(never)
private func makePair(leak: Bool) {
    let owner = FacadeOwner()
    let helper = FacadeHelper()
    owner.helper = helper
    if leak {
        helper.owner = owner
    } else {
        helper.weakOwner = owner
    }
}

/// The façade in-process: install the hook, leak, check; fixed code reports nothing. `import LeakGraph`
/// alone names the report, analysis and model types.
@Suite("LeakChecker in-process", .serialized)
struct LeakCheckerTests {
    static let ownerType = "LeakGraphTests.(private).FacadeOwner"

    /// The root cycles of `report` made of this file's types.
    func facadeCycles(_ report: LeakReport) -> [LeakReport.Cycle] {
        let types = Dictionary(report.leaks.map { ($0.id, $0.type) }, uniquingKeysWith: { a, _ in a })
        return report.cycles.filter { cycle in cycle.members.contains { types[$0]?.hasSuffix("FacadeOwner") == true } }
    }

    @Test("a leaked cycle is found with its typed path, suspect and creation site; fixed code is not reported")
    func leakAndFixed() throws {
        try LeakChecker.startRecording()
        #expect(LeakChecker.isRecording)

        let before = facadeCycles(LeakChecker.check()).count
        makePair(leak: false)
        #expect(facadeCycles(LeakChecker.check()).count == before, "weak back-reference reported as a leak")

        makePair(leak: true)
        let report = LeakChecker.check()
        let cycles = facadeCycles(report)
        #expect(cycles.count == before + 1)
        let cycle = try #require(cycles.last)
        let suspect = try #require(cycle.suspect)
        #expect(suspect.label == "owner")
        #expect(suspect.hint == "make it `weak var owner`")
        let reference = try #require(suspect.reference)
        #expect(report.references[reference].path == [.property("owner"), .optionalPayload])
        #expect(cycle.fingerprint?.count == 16)
        // The proof: each member's retain count is explained by the other member.
        for id in cycle.members {
            let leak = try #require(report.leaks.first { $0.id == id })
            #expect(leak.proof?.inEdges.count == leak.retainCount)
        }
        // Creation stacks are symbolized (or the report says why not).
        let backtraces = cycle.members.compactMap { id in report.leaks.first { $0.id == id }?.backtrace }
        let symbolized = backtraces.allSatisfy { !$0.isEmpty }
        let explained = report.diagnostics.contains { $0.typeName == "(creation stacks)" }
        #expect(symbolized || explained)
        // The text renderer is reachable through the façade.
        #expect(TextReport.render(report).contains("FacadeHelper.owner"))
    }

    @Test("the graph of the leaked objects alone: every node leaked, proofs and invariants hold, live objects counted")
    func leakedGraphAlone() throws {
        try LeakChecker.startRecording()
        makePair(leak: true)
        let graph = LeakChecker.captureLeakedGraph()
        let analysis = LeakAnalysis.analyze(graph)
        #expect(analysis.leaked == Array(graph.nodes.indices), "every node of the leaked graph is leaked")
        #expect(analysis.invariantViolations() == [])
        #expect(graph.liveObjects > graph.nodes.count, "the live objects left out are counted")
        #expect(graph.nodes.contains { $0.typeName == Self.ownerType })
    }
}
