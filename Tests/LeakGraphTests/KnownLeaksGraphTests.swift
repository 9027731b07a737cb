@testable import LeakGraph
import LeakGraphModel
import Testing

/// `KnownLeaks` on hand-built graphs: the parent's half of leaving known leaks out of a forked child's
/// graph — the known part kept by address, put back beside the child's in address order.
@Suite("Known leaks' graph, kept and put back")
struct KnownLeaksGraphTests {
    private func node(_ address: UInt64, _ type: String, retains: Int = 1) -> ObjectNode {
        ObjectNode(address: address, typeName: type, kind: .class, size: 32, retainCount: retains, stackID: nil)
    }

    /// Known: A(0x10) ⇄ B(0x30), C(0x50) → C.
    private var knownGraph: ObjectGraph {
        var graph = ObjectGraph(nodes: [node(0x10, "A"), node(0x30, "B"), node(0x50, "C")], trackedObjects: 10)
        graph.addReference(from: 0, to: 1, path: [.property("b")])
        graph.addReference(from: 1, to: 0, path: [.property("a")])
        graph.addReference(from: 2, to: 2, path: [.property("me")])
        return graph
    }

    @Test("keeping addresses: the nodes there and the references between them, counts adjusted")
    func keeping() {
        let kept = knownGraph.keeping(addresses: [0x10, 0x30])
        #expect(kept.nodes.map(\.address) == [0x10, 0x30])
        #expect(kept.references.map { [$0.from, $0.to] } == [[0, 1], [1, 0]])
        #expect(kept.liveObjectsLeftOut == 1)
    }

    @Test("merged: both parts in address order, references renumbered and in source order")
    func merged() {
        var fresh = ObjectGraph(nodes: [node(0x20, "N"), node(0x40, "M", retains: 2)], trackedObjects: 12)
        fresh.liveObjectsLeftOut = 9
        fresh.addReference(from: 0, to: 1, path: [.property("m")])
        fresh.addReference(from: 1, to: 0, path: [.property("n")])
        let known = KnownLeaks(graph: knownGraph)
        #expect(known.objects[KnownLeaks.stored(0x30)]?.strongTargets == [KnownLeaks.stored(0x10)])
        #expect(known.objects[KnownLeaks.stored(0x50)]?.strongTargets == [KnownLeaks.stored(0x50)])
        #expect(known.objects[0x30] == nil, "no address kept as it is")
        let whole = known.merged(keeping: [0x10, 0x30], with: fresh)
        #expect(whole.nodes.map(\.address) == [0x10, 0x20, 0x30, 0x40])
        #expect(whole.references.map { [$0.from, $0.to] } == [[0, 2], [1, 3], [2, 0], [3, 1]])
        #expect(whole.references.map(\.path.text) == ["b", "m", "a", "n"])
        #expect(whole.trackedObjects == 12)
        #expect(whole.liveObjectsLeftOut == 7, "the two objects put back are no longer left out")
        #expect(known.merged(keeping: [], with: fresh).nodes.count == 2, "nothing kept: the child's graph")
    }
}
