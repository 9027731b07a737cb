@testable import LeakGraphAnalysis
import LeakGraphModel
import Testing

@Suite("Orphans in the analysis (ObjectGraph.orphans)")
struct OrphanAnalysisTests {
    @Test("an orphan is a root group of its own, with what it holds; its proof allows the orphaned retains")
    func orphanHoldsOthers() {
        var f = GraphFixture()
        let token = f.object(retainCount: 1)
        let payload = f.object(retainCount: 1)
        f.strong(token, payload)
        var graph = f.graph
        // Without the scan's proof the unexplained retain is a root: nothing leaks.
        #expect(LeakAnalysis.analyze(graph).leaked.isEmpty)
        graph.orphans = [token]
        let analysis = LeakAnalysis.analyze(graph)
        #expect(analysis.invariantViolations() == [])
        #expect(analysis.leaked == [token, payload])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [token], holds: [payload], isOrphan: true)])
        #expect(analysis.fingerprints()[0] == CycleFingerprint.orphanFingerprint(typeName: graph.nodes[token].typeName))
    }

    @Test("an orphan that a root still reaches is live; an orphan inside a cycle makes the cycle a root cycle")
    func reachableOrphanAndCycle() {
        var f = GraphFixture()
        let global = f.object(retainCount: 1)  // held from outside
        let overRetained = f.object(retainCount: 2)
        f.strong(global, overRetained)
        let a = f.object(retainCount: 2)  // in a cycle, plus one orphaned retain
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a)
        var graph = f.graph
        graph.orphans = [overRetained, a]
        let analysis = LeakAnalysis.analyze(graph)
        #expect(analysis.invariantViolations() == [])
        #expect(analysis.leaked == [a, b])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [a, b], holds: [], isOrphan: false)])
        #expect(LeakAnalysis.leakedNodes(of: StrongReferenceGraph(graph), orphans: graph.orphans) == [a, b])
        #expect(LeakAnalysis.unexplainedNodes(of: StrongReferenceGraph(graph)) == [global, overRetained, a])
    }
}
