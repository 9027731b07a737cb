@testable import LeakGraphHeap
import LeakGraphModel
import Testing

/// `StrongReferenceGraph.adding(_:)` (the edges a walk attributes to tasks) on hand-built graphs: each
/// source keeps its own references first, the added ones after them in the order given.
@Suite("Adding references to a strong graph")
struct StrongGraphAddingTests {
    /// 0 → 1, 0 → 2, 2 → 0; node 1 has none.
    private let graph = StrongReferenceGraph(retainCounts: [1, 1, 1], offsets: [0, 2, 2, 3], targets: [1, 2, 0])

    /// Each node's targets.
    private func targets(_ graph: StrongReferenceGraph) -> [[UInt32]] {
        (0..<graph.nodeCount).map { Array(graph.targets[Int(graph.offsets[$0])..<Int(graph.offsets[$0 + 1])]) }
    }

    @Test("added references follow each source's own, sources in any order; counts unchanged")
    func addedAfterOwn() {
        let added = graph.adding([(from: 2, to: 1), (from: 1, to: 0), (from: 2, to: 2)])
        #expect(targets(added) == [[1, 2], [0], [0, 1, 2]])
        #expect(added.offsets == [0, 2, 3, 6])
        #expect(added.retainCounts == graph.retainCounts)
    }

    @Test("nothing added: the same graph; a reference from a node the graph lacks is left out")
    func nothingOrOutside() {
        #expect(targets(graph.adding([])) == targets(graph))
        let added = graph.adding([(from: 5, to: 0), (from: 0, to: 0)])
        #expect(targets(added) == [[1, 2, 0], [], [0]])
        #expect(added.targets.count == 4)
    }
}
