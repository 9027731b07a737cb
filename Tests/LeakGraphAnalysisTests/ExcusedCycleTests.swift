@testable import LeakGraphAnalysis
import LeakGraphModel
import Testing

/// A known library leak excuses itself, never the cycles among what it holds (issue 12, item 7).
@Suite("Excused root cycles")
struct ExcusedCycleTests {
    /// Suite ⇄ run (the excused cycle) → case ⇄ its run (library links), case → container ⇄ part, case →
    /// a self-referencing node, container → a plain leaf.
    static func suiteShape() -> (fixture: GraphFixture, container: Int, part: Int, node: Int, leaf: Int) {
        var f = GraphFixture()
        let suite = f.object(retainCount: 1, type: "L.Suite")
        let suiteRun = f.object(retainCount: 1, type: "L.Run")
        let testCase = f.object(retainCount: 2, type: "T.Case")
        let caseRun = f.object(retainCount: 1, type: "L.Run")
        let container = f.object(retainCount: 2, type: "T.Container")
        let part = f.object(retainCount: 1, type: "T.Part")
        let node = f.object(retainCount: 2, type: "T.Node")
        let leaf = f.object(retainCount: 1, type: "T.Leaf")
        f.strong(suite, suiteRun, "testRun")
        f.strong(suiteRun, suite, "test")
        f.strong(suite, testCase, "tests")
        f.strong(testCase, caseRun, "testRun")
        f.strong(caseRun, testCase, "test")
        f.strong(testCase, container, "container")
        f.strong(container, part, "part")
        f.strong(part, container, "owner")
        f.strong(testCase, node, "node")
        f.strong(node, node, "me")
        f.strong(container, leaf, "leaf")
        return (f, container, part, node, leaf)
    }

    static func isLibraryLink(_ graph: ObjectGraph) -> (Reference) -> Bool {
        { ["test", "testRun"].contains($0.path.text) && (graph.nodes[$0.from].typeName == "L.Run" || graph.nodes[$0.to].typeName == "L.Run") }
    }

    @Test("the cycles an excused cycle holds become root cycles held by it; the library's own links make none")
    func heldCyclesBecomeRoots() {
        let shape = Self.suiteShape()
        let analysis = LeakAnalysis.analyze(shape.fixture.graph)
        #expect(analysis.rootCycles.count == 1)
        let excused = analysis.excusing(rootCycles: [0], libraryReference: Self.isLibraryLink(analysis.graph))
        #expect(excused.invariantViolations() == [])
        #expect(excused.leaked == analysis.leaked && excused.roots == analysis.roots)
        #expect(
            excused.rootCycles == [
                RootCycle(id: 0, members: [0, 1], holds: [2, 3], heldCycles: [[2, 3]], isExcused: true),
                RootCycle(id: 1, members: [shape.container, shape.part], holds: [shape.leaf], heldBy: 0),
                RootCycle(id: 2, members: [shape.node], holds: [], heldBy: 0),
            ])
        #expect(excused.cycleOf(shape.leaf) == 1)
        // Every root cycle has a suspect and a fingerprint of its own.
        #expect(excused.suspectReferences().allSatisfy { $0 != nil })
        #expect(Set(excused.fingerprints()).count == 3)
    }

    @Test("without the library's links left out, the case ⇄ its run cycle is the one root cycle it holds")
    func libraryLinksCount() {
        let analysis = LeakAnalysis.analyze(Self.suiteShape().fixture.graph)
        let excused = analysis.excusing(rootCycles: [0])
        #expect(excused.invariantViolations() == [])
        #expect(excused.rootCycles.map(\.members) == [[0, 1], [2, 3]])
        #expect(excused.rootCycles[1].heldBy == 0 && excused.rootCycles[1].heldCycles.count == 2)
    }

    @Test("objects another root cycle also reaches belong to it, not to a cycle the excused one holds")
    func otherCyclesFirst() {
        var f = GraphFixture()
        let library = f.objects(2, retainCount: 1, type: "L.Suite")
        let user = f.objects(2, retainCount: 1, type: "T.Ring")
        let shared = [f.object(retainCount: 3, type: "T.Shared"), f.object(retainCount: 1, type: "T.Shared")]
        f.strong(library[0], library[1])
        f.strong(library[1], library[0])
        f.strong(user[0], user[1])
        f.strong(user[1], user[0])
        // The library and the user's ring both hold the shared ring.
        f.strong(library[0], shared[0], "held")
        f.strong(user[0], shared[0], "held")
        f.strong(shared[0], shared[1])
        f.strong(shared[1], shared[0])
        let analysis = LeakAnalysis.analyze(f.graph)
        let excused = analysis.excusing(rootCycles: [0])
        #expect(excused.invariantViolations() == [])
        #expect(excused.rootCycles.count == 2)
        #expect(excused.rootCycles[1].holds == shared && excused.rootCycles[1].heldCycles == [shared])
        #expect(excused.rootCycles[0].holds.isEmpty)
    }

    @Test("excusing nothing, or a cycle that holds nothing, changes nothing")
    func nothingToExcuse() {
        var f = GraphFixture()
        let ring = f.objects(2, retainCount: 1)
        f.strong(ring[0], ring[1])
        f.strong(ring[1], ring[0])
        let analysis = LeakAnalysis.analyze(f.graph)
        #expect(analysis.excusing(rootCycles: []) == analysis)
        let excused = analysis.excusing(rootCycles: [0])
        #expect(excused.rootCycles == [RootCycle(id: 0, members: ring, holds: [], isExcused: true)])
        #expect(excused.invariantViolations() == [])
    }
}
