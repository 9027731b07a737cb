@testable import LeakGraphAnalysis
import LeakGraphModel
import Testing

/// Analyses `fixture` and checks every structural invariant of the result.
private func analyzeChecked(_ fixture: GraphFixture, sourceLocation: SourceLocation = #_sourceLocation) -> LeakAnalysis {
    let analysis = LeakAnalysis.analyze(fixture.graph)
    #expect(analysis.invariantViolations() == [], sourceLocation: sourceLocation)
    return analysis
}

@Suite("Leak analysis on hand-built graphs")
struct LeakAnalysisTests {
    @Test("a two-object cycle whose counts are both explained is one leaked root cycle")
    func twoObjectCycle() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a, "prev")
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [0, 1])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [0, 1], holds: [])])
        #expect(analysis.roots == [])
        #expect(analysis.cycleOf(a) == 0)
        #expect(analysis.cycleOf(b) == 0)
        #expect(analysis.proof(of: a) == [b])
        #expect(analysis.proof(of: b) == [a])
        #expect(analysis.externalReferences(of: a) == 0)
        #expect(analysis.leakedBytes == 64)
    }

    @Test("the same cycle with one external reference leaks nothing")
    func cycleWithExternalReference() {
        var f = GraphFixture()
        let a = f.object(retainCount: 2)
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a)
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [])
        #expect(analysis.rootCycles == [])
        #expect(analysis.roots == [a])
        #expect(analysis.externalReferences(of: a) == 1)
        #expect(analysis.externalReferences(of: b) == 0)
        #expect(analysis.cycleOf(a) == nil)
        #expect(analysis.proof(of: a) == [])
        #expect(analysis.leakedBytes == 0)
    }

    @Test("a weak back-reference does not close a cycle", arguments: [Ownership.weak, .unowned, .unmanaged])
    func weakBackReference(_ ownership: Ownership) {
        var f = GraphFixture()
        let parent = f.object(retainCount: 1)
        let child = f.object(retainCount: 1)
        f.strong(parent, child, "child")
        f.reference(child, parent, ownership, "parent")
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [])
        #expect(analysis.roots == [parent])
        #expect(analysis.externalReferences(of: parent) == 1)
    }

    @Test("objects linked by a weak back-reference under a cycle are held, not a second cycle")
    func weakBackReferenceUnderCycle() {
        var f = GraphFixture()
        let c0 = f.object(retainCount: 1)
        let c1 = f.object(retainCount: 1)
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        f.strong(c0, c1)
        f.strong(c1, c0)
        f.strong(c1, a, "payload")
        f.strong(a, b, "child")
        f.reference(b, a, .weak, "parent")
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [0, 1, 2, 3])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [c0, c1], holds: [a, b])])
    }

    @Test("an object holding itself strongly is a root cycle of one")
    func selfLoop() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        f.strong(a, a, "me")
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [a])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [a], holds: [])])
        #expect(analysis.proof(of: a) == [a])
    }

    @Test("a weak self-reference is not a self-loop")
    func weakSelfReference() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        f.reference(a, a, .weak, "me")
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [])
        #expect(analysis.roots == [a])
    }

    @Test("a cycle holding a chain of three objects holds all three")
    func cycleHoldingChain() {
        var f = GraphFixture()
        let c = f.objects(2, retainCount: 1)
        let chain = f.objects(3, retainCount: 1, type: "Fixture.Payload")
        f.strong(c[0], c[1])
        f.strong(c[1], c[0])
        f.strong(c[1], chain[0], "payload")
        f.strong(chain[0], chain[1])
        f.strong(chain[1], chain[2])
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [0, 1, 2, 3, 4])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [0, 1], holds: [2, 3, 4])])
        #expect(analysis.rootCycles[0].holds.count == 3)
        #expect(analysis.cycleOf(chain[2]) == 0)
        #expect(analysis.proof(of: chain[0]) == [c[1]])
    }

    @Test("two independent cycles are two root cycles, numbered by their smallest member")
    func twoIndependentCycles() {
        var f = GraphFixture()
        let n = f.objects(4, retainCount: 1)
        // Cycle {1, 3} is added first, but cycle {0, 2} has the smallest member.
        f.strong(n[1], n[3])
        f.strong(n[3], n[1])
        f.strong(n[2], n[0])
        f.strong(n[0], n[2])
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [0, 1, 2, 3])
        #expect(analysis.rootCycles == [
            RootCycle(id: 0, members: [0, 2], holds: []),
            RootCycle(id: 1, members: [1, 3], holds: []),
        ])
        #expect(analysis.cycleOf(n[3]) == 1)
    }

    @Test("a cycle held by another cycle is held, not a root cycle")
    func cycleHoldingCycle() {
        var f = GraphFixture()
        // The held cycle {0, 1} has smaller indices than its holder {2, 3}.
        let inner = f.objects(2, retainCount: 1)
        let outer = f.objects(2, retainCount: 1)
        f.strong(outer[0], outer[1])
        f.strong(outer[1], outer[0])
        f.strong(inner[0], inner[1])
        f.strong(inner[1], inner[0])
        f.strong(outer[1], inner[0], "inner")
        f.graph.nodes[inner[0]].retainCount = 2
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [0, 1, 2, 3])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [2, 3], holds: [0, 1], heldCycles: [[0, 1]])])
        #expect(analysis.cycleOf(inner[1]) == 0)
        #expect(analysis.proof(of: inner[0]) == [inner[1], outer[1]])
    }

    @Test("a cycle reachable from an externally held object is not leaked")
    func cycleReachableFromRoot() {
        var f = GraphFixture()
        let global = f.object(retainCount: 1)
        let a = f.object(retainCount: 2)
        let b = f.object(retainCount: 1)
        f.strong(global, a, "cache")
        f.strong(a, b)
        f.strong(b, a)
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [])
        #expect(analysis.rootCycles == [])
        #expect(analysis.roots == [global])
        #expect(analysis.anomalies == [])
    }

    @Test("more strong in-edges than the retain count is an anomaly, held, never leaked")
    func negativeExternalCount() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a)
        f.strong(b, a, "again")
        let analysis = analyzeChecked(f)
        #expect(analysis.externalReferences(of: a) == -1)
        #expect(analysis.anomalies == [a])
        #expect(analysis.roots == [a])
        #expect(analysis.leaked == [])
        #expect(analysis.rootCycles == [])
    }

    @Test("an object failing the proof is excluded with everything it holds; the rest is still reported")
    func proofFailureRemoval() {
        var f = GraphFixture()
        // An object dying during the check: retain count 0, nothing pointing at it, but it still holds a
        // cycle. Unreached, it would otherwise be reported with the cycle it holds.
        let dying = f.object(retainCount: 0)
        let held = f.objects(2, retainCount: 1)
        f.strong(dying, held[0], "owned")
        f.graph.nodes[held[0]].retainCount = 2
        f.strong(held[0], held[1])
        f.strong(held[1], held[0])
        // A real leak beside it.
        let leak = f.objects(2, retainCount: 1)
        f.strong(leak[0], leak[1])
        f.strong(leak[1], leak[0])
        let analysis = analyzeChecked(f)
        #expect(analysis.excludedByProof == [dying])
        #expect(analysis.roots == [dying])
        #expect(analysis.externalReferences(of: dying) == 0)
        #expect(analysis.leaked == [3, 4])
        #expect(analysis.rootCycles == [RootCycle(id: 0, members: [3, 4], holds: [])])
        #expect(analysis.verifyProofs() == [])
    }

    @Test("the proof check reports a leaked object whose count is not explained")
    func proofCheckDetectsMismatch() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a)
        let analysis = LeakAnalysis.analyze(f.graph)
        #expect(analysis.verifyProofs() == [])
        // The same tables checked against a graph that changed after the analysis: the proof check reads
        // the graph, not the analysis' own counts.
        var tampered = analysis
        tampered.graph.nodes[b].retainCount = 2
        #expect(tampered.verifyProofs() == [b])
        #expect(tampered.invariantViolations() == ["proof fails for leaked node 1"])
    }

    @Test("duplicate strong references count twice")
    func duplicateEdges() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 2)
        f.strong(a, b, "left")
        f.strong(a, b, "right")
        f.strong(b, a, "owner")
        let analysis = analyzeChecked(f)
        #expect(analysis.leaked == [a, b])
        #expect(analysis.proof(of: b) == [a, a])
        #expect(analysis.externalReferences(of: b) == 0)

        // With a retain count of 1 the second reference is unexplained: an anomaly, nothing leaked.
        f.graph.nodes[b].retainCount = 1
        let anomalous = analyzeChecked(f)
        #expect(anomalous.externalReferences(of: b) == -1)
        #expect(anomalous.anomalies == [b])
        #expect(anomalous.leaked == [])
    }

    @Test("references to indices outside the graph are ignored and can only hide a leak")
    func invalidReferences() {
        var f = GraphFixture()
        let a = f.object(retainCount: 1)
        let b = f.object(retainCount: 1)
        f.strong(a, b)
        f.strong(b, a)
        f.strong(7, a, "bogus")
        f.strong(b, -1, "bogus")
        let analysis = analyzeChecked(f)
        #expect(analysis.ignoredReferences == [2, 3])
        #expect(analysis.leaked == [a, b])
    }

    @Test("an empty graph leaks nothing")
    func emptyGraph() {
        let analysis = LeakAnalysis.analyze(ObjectGraph())
        #expect(analysis.leaked == [])
        #expect(analysis.rootCycles == [])
        #expect(analysis.nodeCount == 0)
    }
}
