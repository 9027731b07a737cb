import LeakGraphAnalysis
import LeakGraphModel
import Testing

@Suite("Large graphs need no deep call stack")
struct LargeGraphTests {
    @Test("a live chain of 1,000,000 objects from one root leaks nothing")
    func millionObjectLiveChain() {
        let count = 1_000_000
        var f = GraphFixture()
        f.graph.nodes.reserveCapacity(count)
        f.graph.references.reserveCapacity(count)
        _ = f.objects(count, retainCount: 1)
        for index in 1 ..< count {
            f.strong(index - 1, index)
        }
        let analysis = LeakAnalysis.analyze(f.graph)
        #expect(analysis.roots == [0])
        #expect(analysis.leaked.isEmpty)
        #expect(analysis.rootCycles.isEmpty)
    }

    @Test("a leaked chain of 1,000,000 objects held by a self-loop: one root cycle holding the rest")
    func millionObjectLeakedChain() {
        let count = 1_000_000
        var f = GraphFixture()
        _ = f.objects(count, retainCount: 1)
        f.strong(0, 0, "me")
        for index in 1 ..< count {
            f.strong(index - 1, index)
        }
        let analysis = LeakAnalysis.analyze(f.graph)
        #expect(analysis.leaked.count == count)
        #expect(analysis.rootCycles.count == 1)
        #expect(analysis.rootCycles.first?.members == [0])
        #expect(analysis.rootCycles.first?.holds.count == count - 1)
        #expect(analysis.cycleOf(count - 1) == 0)
        #expect(analysis.verifyProofs() == [])
    }

    @Test("a leaked ring of 100,000 objects is one root cycle of 100,000 members")
    func hundredThousandObjectRing() {
        let count = 100_000
        var f = GraphFixture()
        _ = f.objects(count, retainCount: 1)
        for index in 0 ..< count {
            f.strong(index, (index + 1) % count)
        }
        let analysis = LeakAnalysis.analyze(f.graph)
        #expect(analysis.leaked.count == count)
        #expect(analysis.rootCycles.count == 1)
        #expect(analysis.rootCycles.first?.members == Array(0 ..< count))
        #expect(analysis.rootCycles.first?.holds == [])
        #expect(analysis.invariantViolations() == [])
    }
}
