import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphTestSupport
import Testing

/// `LeakAnalysis.cutReferences()`: every reference that must be cut to free a root cycle.
@Suite("Cut references")
struct CutReferencesTests {
    /// `(from type).label` of each cut of the only root cycle.
    func cuts(_ builder: ShapeBuilder) -> [String] {
        let analysis = LeakAnalysis.analyze(builder.leakedGraph)
        #expect(analysis.rootCycles.count == 1)
        let cuts = analysis.cutReferences()
        #expect(cuts.count == analysis.rootCycles.count)
        #expect(cuts.first?.first == analysis.suspectReferences().first!, "the first cut is the suspect")
        return (cuts.first ?? []).map { "\(analysis.graph.nodes[$0.from].typeName).\($0.path.text)" }
    }

    @Test("a ring needs one cut: the suspect")
    func ring() {
        var shape = ShapeBuilder()
        let nodes = (0 ..< 5).map { _ in shape.object("App.Link") }
        for index in nodes.indices {
            shape.ref(nodes[index], nodes[(index + 1) % nodes.count], "next")
        }
        #expect(cuts(shape).count == 1)
    }

    @Test("two loops through one object: the delegate and the handler's owner both")
    func twoLoops() {
        var shape = ShapeBuilder()
        let screen = shape.object("App.Screen")
        let registry = shape.object("App.Registry")
        let handler = shape.object("App.Handler")
        shape.ref(screen, registry, "registry")
        shape.ref(registry, screen, "delegate")
        shape.ref(screen, handler, "handler")
        shape.ref(handler, screen, "owner")
        #expect(cuts(shape) == ["App.Registry.delegate", "App.Handler.owner"])
    }

    @Test("two properties holding the same parent: both must go")
    func parallelReferences() {
        var shape = ShapeBuilder()
        let parent = shape.object("App.Parent")
        let child = shape.object("App.Child")
        shape.ref(parent, child, "child")
        shape.ref(child, parent, "parent")
        shape.ref(child, parent, "owner")
        #expect(Set(cuts(shape)) == ["App.Child.parent", "App.Child.owner"])
    }

    @Test("a self-reference left after the first cut is named too")
    func selfLoopLeft() {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        shape.ref(a, b, "b")
        shape.ref(b, a, "parent")
        shape.ref(b, b, "me")
        let named = cuts(shape)
        #expect(named.count == 2)
        #expect(Set(named) == ["App.B.parent", "App.B.me"])
    }

    @Test("after every cut no cycle is left among the members (random dense cycles)")
    func cutsFreeTheCycle() {
        var generator = SplitMix64(state: 7)
        for _ in 0 ..< 50 {
            var shape = ShapeBuilder()
            let count = 2 + generator.below(6)
            let nodes = (0 ..< count).map { _ in shape.object("App.N") }
            for index in nodes.indices {  // a ring keeps them one component
                shape.ref(nodes[index], nodes[(index + 1) % count], "next")
            }
            for _ in 0 ..< generator.below(8) {
                shape.ref(nodes[generator.below(count)], nodes[generator.below(count)], "extra")
            }
            let analysis = LeakAnalysis.analyze(shape.leakedGraph)
            guard let cycle = analysis.rootCycles.first else { continue }
            let cut = Set((analysis.cutReferences(limit: 100).first ?? []).map(\.reference))
            // What is left must be acyclic: a topological order exists.
            var successors = [Int: [Int]]()
            var inDegree = [Int: Int]()
            for member in cycle.members { inDegree[member] = 0 }
            for (index, reference) in analysis.graph.references.enumerated()
            where !cut.contains(index) && reference.ownership == .strong && inDegree[reference.from] != nil && inDegree[reference.to] != nil {
                successors[reference.from, default: []].append(reference.to)
                inDegree[reference.to, default: 0] += 1
            }
            var ready = inDegree.filter { $0.value == 0 }.map(\.key)
            var removed = 0
            while let node = ready.popLast() {
                removed += 1
                for next in successors[node] ?? [] {
                    inDegree[next]! -= 1
                    if inDegree[next] == 0 { ready.append(next) }
                }
            }
            #expect(removed == cycle.members.count, "a cycle is left after \(cut.count) cuts")
        }
    }
}

