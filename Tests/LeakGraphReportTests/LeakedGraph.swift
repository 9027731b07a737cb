import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import LeakGraphTestSupport

/// Builds a graph of leaked shapes (addresses `0x7f0000001000 + 0x40 × index`); retain counts are set
/// from the strong references, so everything added is leaked.
struct LeakedGraph {
    var graph = ObjectGraph(trackedObjects: 100)

    @discardableResult
    mutating func object(_ type: String, _ kind: ObjectKind = .class, size: Int = 32) -> Int {
        graph.addNode(
            ObjectNode(
                address: 0x7f00_0000_1000 + 0x40 * UInt64(graph.nodes.count), typeName: type, kind: kind, size: size,
                retainCount: 0
            )
        )
    }

    mutating func ref(_ from: Int, _ to: Int, _ label: String, _ ownership: Ownership = .strong) {
        graph.addReference(from: from, to: to, path: path(label), ownership: ownership)
    }

    /// The report of the graph, every retain count explained by the strong references.
    func report() -> LeakReport {
        var graph = graph
        for reference in graph.references where reference.ownership == .strong {
            graph.nodes[reference.to].retainCount += 1
        }
        let analysis = LeakAnalysis.analyze(graph)
        return LeakReport(analysis: analysis, program: .init(path: "/work/build/Shapes", arguments: [], exitStatus: 0))
    }
}
