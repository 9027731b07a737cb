import LeakGraphGraphviz
import LeakGraphRender
import LeakGraphReport
import Testing

/// Where dot draws the suspect: its arrowhead on the object it points at, and its line and label beside
/// the two objects it joins. (Drawn unranked, dot once put the label wherever the rank had room and
/// routed the edge through it, across the row of held objects — the suspect then seemed to point at one of
/// them.)
@Suite("Suspect routing")
struct SuspectRoutingTests {
    /// How far outside the two objects' joint box the suspect's line and label may go, in points: room
    /// for the bow of an edge drawn beside another between the same two objects, far less than a node's width.
    static let slack = 60.0

    static let reports: [(name: String, report: LeakReport)] = [
        ("ring", GraphFixtures.ringReport),
        ("three cycles", GraphFixtures.threeCycleReport),
        ("one pipeline", GraphFixtures.pipelineReport(count: 1)),
        ("three pipelines", GraphFixtures.pipelineReport(count: 3)),
    ]

    @Test("the suspect's arrowhead is on its target, and its line and label stay beside the objects it joins",
          arguments: reports.indices)
    func suspectStaysBesideItsObjects(_ index: Int) throws {
        let report = Self.reports[index].report
        let suspects = report.cycles.compactMap(\.suspect)
        #expect(!suspects.isEmpty)
        for graph in DOTRenderer.graphs(for: report) {
            let svg = try ParsedSVG(SVGRenderer.render(graph))
            var boxes: [String: SVGGeometry.Box] = [:]
            for node in svg.groups(ofClass: "node") {
                if let title = ParsedSVG.title(of: node), let box = SVGGeometry.box(ofNode: node) { boxes[title] = box }
            }
            let redEdges = svg.groups(ofClass: "edge").filter { ParsedSVG.pathStyle(of: $0).stroke == "red" }
            let drawn = suspects.filter { boxes["leak\($0.from)"] != nil && boxes["leak\($0.to)"] != nil }
            #expect(redEdges.count == drawn.count, "\(graph.name)")
            for suspect in drawn {
                let (from, to) = ("leak\(suspect.from)", "leak\(suspect.to)")
                let edge = try #require(redEdges.first { edge in
                    let title = ParsedSVG.title(of: edge)
                    return title == "\(from)->\(to)" || title == "\(to)->\(from)"
                }, "\(graph.name): no red edge joins \(from) and \(to)")
                let (source, target) = (try #require(boxes[from]), try #require(boxes[to]))

                // The arrowhead touches the target, and no other object is nearer to it.
                let head = try #require(SVGGeometry.arrowhead(ofEdge: edge))
                #expect(target.distance(to: head) < 8, "\(graph.name): the arrowhead is not on \(to)")
                let nearest = boxes.min { $0.value.distance(to: head) < $1.value.distance(to: head) }?.key
                #expect(nearest == to, "\(graph.name): the arrowhead is nearest \(nearest ?? "nothing"), not \(to)")

                // The line and the label stay near the two objects…
                let area = source.union(target).inset(by: Self.slack)
                let curve = SVGGeometry.curve(ofEdge: edge)
                #expect(curve.count > 4)
                let strays = curve.filter { !area.contains($0) }
                #expect(strays.isEmpty, "\(graph.name): the suspect \(from)→\(to) strays to \(strays.first.map { "(\(Int($0.x)), \(Int($0.y)))" } ?? "")")
                for label in SVGGeometry.labelAnchors(ofEdge: edge) {
                    #expect(area.contains(label), "\(graph.name): the suspect's label is at (\(Int(label.x)), \(Int(label.y))), away from its objects")
                }
                // …and do not run through any other object.
                for (name, box) in boxes where name != from && name != to {
                    let inner = box.inset(by: -3)
                    #expect(!curve.contains { inner.contains($0) }, "\(graph.name): the suspect \(from)→\(to) crosses \(name)")
                }
            }
        }
    }
}
