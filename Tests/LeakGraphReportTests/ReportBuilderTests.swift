import LeakGraphTestSupport
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import Testing

@Suite("Report builder")
struct ReportBuilderTests {
    /// Nodes (index: type, retain count):
    /// 0 App.Global (1, held from outside) → 1 App.Cache (1): live.
    /// 2 App.Node ⇄ 3 App.Node: a root cycle; 3 → 4 App.Payload → 5 App.Box (self-loop, count 2);
    /// 4 → 2 weak; 2 → 1 (a leaked object referencing a live one).
    /// 6 App.Leaf: a self-loop, the second root cycle.
    static var graph: ObjectGraph {
        var graph = ObjectGraph(trackedObjects: 10)
        let nodes: [(String, ObjectKind, Int, Int, Int?)] = [
            ("App.Global", .class, 16, 1, nil), ("App.Cache", .class, 24, 1, 7),
            ("App.Node", .class, 32, 1, 1), ("App.Node", .class, 32, 1, 1),
            ("App.Payload", .class, 48, 1, 2), ("App.Box", .box, 24, 2, nil), ("App.Leaf", .class, 16, 1, 3),
        ]
        for (index, node) in nodes.enumerated() {
            graph.addNode(
                ObjectNode(address: 0x1000 + 0x40 * UInt64(index), typeName: node.0, kind: node.1, size: node.2, retainCount: node.3, stackID: node.4)
            )
        }
        graph.addReference(from: 0, to: 1, path: path("cache"))
        graph.addReference(from: 2, to: 3, path: path("next"))
        graph.addReference(from: 3, to: 2, path: path("next"))
        graph.addReference(from: 3, to: 4, path: path("payload"))
        graph.addReference(from: 2, to: 1, path: path("cache"))
        graph.addReference(from: 4, to: 2, path: path("owner"), ownership: .weak)
        graph.addReference(from: 4, to: 5, path: path("box"))
        graph.addReference(from: 5, to: 5, path: path("me"))
        graph.addReference(from: 6, to: 6, path: path("me"))
        graph.diagnostics = [WalkDiagnostic(typeName: "App.Opaque", reason: "layout not read yet", objectCount: 1)]
        return graph
    }

    @Test("ids, cycles, holds, references and proofs come out exactly")
    func exactReport() {
        let graph = Self.graph
        let analysis = LeakAnalysis.analyze(graph)
        var calls: [Int] = []
        let report = LeakReport(
            analysis: analysis, program: .init(path: "/bin/app", arguments: ["-v"], exitStatus: 3)
        ) { stackID in
            calls.append(stackID)
            return [LeakReport.Frame(function: "f\(stackID)", file: "main.swift", line: stackID)]
        }
        #expect(calls.sorted() == [1, 2, 3])

        #expect(report.schemaVersion == 2)
        #expect(report.program == .init(path: "/bin/app", arguments: ["-v"], exitStatus: 3))
        #expect(report.summary == .init(trackedObjects: 10, liveObjects: 7, leakedObjects: 5, leakedBytes: 152, rootCycles: 2))
        #expect(
            report.cycles.map { LeakReport.Cycle(id: $0.id, members: $0.members, holds: $0.holds) }
                == [.init(id: 0, members: [0, 1], holds: [2, 3]), .init(id: 1, members: [4], holds: [])]
        )
        // Suspects by leak ids: the ring's closing `next` (into leak 0 from leak 1), the Leaf's `me`.
        #expect(report.cycles.map { $0.suspect.map { [$0.from, $0.to] } } == [[1, 0], [4, 4]])
        #expect(report.cycles.map { $0.suspect?.label } == ["next", "me"])
        #expect(report.cycles[1].suspect?.reason == "the object references itself")
        #expect(
            report.cycles.map(\.fingerprint) == [
                CycleFingerprint.fingerprint(of: [.init(sourceType: "App.Node", path: path("next"), targetType: "App.Node")]),
                CycleFingerprint.fingerprint(of: [.init(sourceType: "App.Leaf", path: path("me"), targetType: "App.Leaf")]),
            ]
        )
        func frames(_ stackID: Int) -> [LeakReport.Frame] { [.init(function: "f\(stackID)", file: "main.swift", line: stackID)] }
        #expect(report.leaks == [
            .init(id: 0, address: "0x1080", type: "App.Node", kind: "class", size: 32, retainCount: 1, cycle: 0, backtrace: frames(1), proof: .init(retainCount: 1, inEdges: [1])),
            .init(id: 1, address: "0x10c0", type: "App.Node", kind: "class", size: 32, retainCount: 1, cycle: 0, backtrace: frames(1), proof: .init(retainCount: 1, inEdges: [0])),
            .init(id: 2, address: "0x1100", type: "App.Payload", kind: "class", size: 48, retainCount: 1, cycle: 0, backtrace: frames(2), proof: .init(retainCount: 1, inEdges: [1])),
            .init(id: 3, address: "0x1140", type: "App.Box", kind: "box", size: 24, retainCount: 2, cycle: 0, backtrace: [], proof: .init(retainCount: 2, inEdges: [2, 3])),
            .init(id: 4, address: "0x1180", type: "App.Leaf", kind: "class", size: 16, retainCount: 1, cycle: 1, backtrace: frames(3), proof: .init(retainCount: 1, inEdges: [4])),
        ])
        #expect(report.references == [
            .init(from: 0, to: 1, path: path("next"), ownership: .strong),
            .init(from: 1, to: 0, path: path("next"), ownership: .strong),
            .init(from: 1, to: 2, path: path("payload"), ownership: .strong),
            .init(from: 2, to: 0, path: path("owner"), ownership: .weak),
            .init(from: 2, to: 3, path: path("box"), ownership: .strong),
            .init(from: 3, to: 3, path: path("me"), ownership: .strong),
            .init(from: 4, to: 4, path: path("me"), ownership: .strong),
        ])
        #expect(report.diagnostics == graph.diagnostics)
    }

    @Test("a graph without leaks gives an empty report with the totals")
    func noLeaks() {
        var graph = ObjectGraph(trackedObjects: 3)
        graph.addNode(ObjectNode(address: 0xdead_beef, typeName: "App.Root", kind: .class, size: 16, retainCount: 1))
        graph.addNode(ObjectNode(address: 0xdead_bef0, typeName: "App.Child", kind: .class, size: 16, retainCount: 1))
        graph.addReference(from: 0, to: 1, path: path("child"))
        let report = LeakReport(analysis: LeakAnalysis.analyze(graph), program: .init(path: "/a", arguments: [], exitStatus: 0))
        #expect(report.leaks.isEmpty && report.references.isEmpty && report.cycles.isEmpty)
        #expect(report.summary == .init(trackedObjects: 3, liveObjects: 2, leakedObjects: 0, leakedBytes: 0, rootCycles: 0))
    }

    @Test("addresses are 0x and lowercase hexadecimal")
    func hexAddress() {
        #expect(LeakReport.hexAddress(0x7F3A_BC00_1000) == "0x7f3abc001000")
        #expect(LeakReport.hexAddress(0) == "0x0")
    }
}
