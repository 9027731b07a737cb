import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import LeakGraphTestSupport
import Testing

/// `LeakReport.keepingCycles(where:)`: a report of some root cycles, renumbered, with every proof whole.
@Suite struct RestrictedReportTests {
    /// Three root cycles: A (0 ⇄ 1) and C (3 ⇄ 4) both reference X (2), which A holds; B (5 ⇄ 6) alone.
    static var report: LeakReport {
        var graph = ObjectGraph()
        let nodes: [(String, Int)] = [
            ("App.A", 1), ("App.A", 1), ("App.X", 2), ("App.C", 1), ("App.C", 1), ("App.B", 1), ("App.B", 1),
        ]
        for (index, node) in nodes.enumerated() {
            graph.addNode(ObjectNode(address: 0x1000 + 0x40 * UInt64(index), typeName: node.0, kind: .class, size: 32, retainCount: node.1))
        }
        graph.addReference(from: 0, to: 1, path: path("next"))
        graph.addReference(from: 1, to: 0, path: path("next"))
        graph.addReference(from: 0, to: 2, path: path("shared"))
        graph.addReference(from: 3, to: 4, path: path("next"))
        graph.addReference(from: 4, to: 3, path: path("next"))
        graph.addReference(from: 3, to: 2, path: path("shared"))
        graph.addReference(from: 5, to: 6, path: path("next"))
        graph.addReference(from: 6, to: 5, path: path("next"))
        return LeakReport(analysis: LeakAnalysis.analyze(graph), program: .init(path: "/bin/app", arguments: [], exitStatus: 0))
    }

    /// The member types of each cycle, in order.
    func cycleTypes(_ report: LeakReport) -> [String] {
        report.cycles.map { cycle in cycle.members.map { report.leaks[$0].type }.joined(separator: ",") }
    }

    @Test("keeping one cycle keeps its leaks and references, renumbered, and recounts the summary")
    func keepOne() throws {
        let full = Self.report
        #expect(full.cycles.count == 3)
        let kept = full.keepingCycles { cycle in full.leaks[cycle.members[0]].type == "App.B" }
        #expect(cycleTypes(kept) == ["App.B,App.B"])
        #expect(kept.leaks.map(\.id) == [0, 1])
        #expect(kept.leaks.allSatisfy { $0.cycle == 0 })
        #expect(kept.references.count == 2)
        #expect(kept.summary.leakedObjects == 2)
        #expect(kept.summary.leakedBytes == 64)
        #expect(kept.summary.rootCycles == 1)
        #expect(kept.summary.liveObjects == full.summary.liveObjects)
        let suspect = try #require(kept.cycles[0].suspect)
        let reference = try #require(suspect.reference)
        #expect(kept.references[reference].from == suspect.from && kept.references[reference].to == suspect.to)
        for leak in kept.leaks {
            #expect(leak.proof?.inEdges.count == leak.retainCount)
        }
    }

    @Test("a cycle with a reference into a kept one is kept too, so every proof stays whole")
    func keepsWhatTheProofNeeds() {
        let full = Self.report
        let kept = full.keepingCycles { cycle in full.leaks[cycle.members[0]].type == "App.A" }
        #expect(Set(cycleTypes(kept)) == ["App.A,App.A", "App.C,App.C"])
        let shared = kept.leaks.first { $0.type == "App.X" }
        #expect(shared?.proof?.inEdges.count == 2)
        for leak in kept.leaks {
            #expect(leak.proof?.inEdges.count == leak.retainCount, "\(leak.type)")
        }
    }

    @Test("keeping every cycle changes nothing; keeping none leaves an empty report")
    func allAndNone() {
        let full = Self.report
        #expect(full.keepingCycles { _ in true } == full)
        let none = full.keepingCycles { _ in false }
        #expect(none.leaks.isEmpty && none.cycles.isEmpty && none.references.isEmpty)
        #expect(none.summary.leakedObjects == 0 && none.summary.rootCycles == 0)
    }
}
