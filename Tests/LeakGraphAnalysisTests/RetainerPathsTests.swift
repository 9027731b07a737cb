import LeakGraphAnalysis
import LeakGraphModel
import Testing

@Suite("Retainer chains (why an object is alive)")
struct RetainerPathsTests {
    private func chain(_ f: GraphFixture, to target: Int) -> [Int]? {
        let strong = StrongReferenceGraph(f.graph)
        return RetainerPaths.shortestChain(to: target, in: strong, reversed: RetainerPaths.Reversed(strong))
    }

    @Test("the shortest chain from a root wins over a longer one; weak references are not followed")
    func shortestChain() {
        var f = GraphFixture()
        let global = f.object(retainCount: 1)  // held from outside
        let list = f.object(retainCount: 1)
        let observer = f.object(retainCount: 1)
        let context = f.object(retainCount: 1)
        let controller = f.object(retainCount: 1)
        let farRoot = f.object(retainCount: 1)
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        let c = f.object(retainCount: 1)
        f.strong(global, list)
        f.strong(list, observer)
        f.strong(observer, context)
        f.strong(context, controller)
        f.strong(farRoot, a)
        f.strong(a, b)
        f.strong(b, c)
        f.strong(c, context)  // a second, longer way in
        f.reference(controller, global, .weak)
        // context has 2 in-edges but retain count 1 (a hand-built graph's counts need not agree): it is
        // no root. The shortest chain is global → list → observer → context → controller.
        #expect(chain(f, to: controller) == [global, list, observer, context, controller])
        #expect(chain(f, to: global) == [global], "a root nothing else holds is its own chain")
        // A root that another root also reaches: the other root's chain (the asker's own local
        // variable is the target's unexplained retain).
        var g = GraphFixture()
        let holder = g.object(retainCount: 1)
        let asked = g.object(retainCount: 2)
        g.strong(holder, asked)
        #expect(chain(g, to: asked) == [holder, asked])
    }

    @Test("an object no root reaches (a leaked cycle) has no chain; an unexplained retain inside a cycle is a root")
    func leakedAndHeldCycles() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a)
        #expect(chain(f, to: b) == nil)
        let c = f.object(retainCount: 2)  // held from outside too
        let d = f.object(retainCount: 1)
        f.strong(c, d)
        f.strong(d, c)
        #expect(chain(f, to: d) == [c, d])
    }

    @Test("the reversed graph lists every strong in-edge once")
    func reversed() {
        var f = GraphFixture()
        let nodes = f.objects(4, retainCount: 1)
        f.strong(nodes[0], nodes[3])
        f.strong(nodes[1], nodes[3])
        f.strong(nodes[2], nodes[3])
        f.strong(nodes[3], nodes[0])
        let reversed = RetainerPaths.Reversed(StrongReferenceGraph(f.graph))
        #expect(reversed.inDegree(of: nodes[3]) == 3)
        #expect(Array(reversed.sources[Int(reversed.offsets[3]) ..< Int(reversed.offsets[4])]).sorted() == [0, 1, 2])
        #expect(reversed.inDegree(of: nodes[1]) == 0)
    }
}
