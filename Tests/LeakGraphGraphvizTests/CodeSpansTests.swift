import LeakGraphGraphviz
@testable import LeakGraphRender
import LeakGraphReport
import Testing

/// Backtick code spans of hint texts, shown as code in HTML and in quotation marks in tooltips.
@Suite struct CodeSpansTests {
    @Test func splitsProseAndCode() {
        let runs = CodeSpans.split("make it `weak var owner` or `unowned`, not `this")
        #expect(runs.map { "\($0.isCode ? "C" : "P"):\($0.text)" } == [
            "P:make it ", "C:weak var owner", "P: or ", "C:unowned", "P:, not `this",
        ])
        #expect(CodeSpans.split("").isEmpty)
        #expect(CodeSpans.split("no code").map(\.isCode) == [false])
    }

    @Test func htmlAndPlain() {
        let hint = "capture self weakly: `{ [weak self] in … }` & <done>"
        #expect(CodeSpans.html(hint) == "capture self weakly: <code>{ [weak self] in … }</code> &amp; &lt;done&gt;")
        #expect(CodeSpans.plain(hint) == "capture self weakly: ‘{ [weak self] in … }’ & <done>")
    }
}

/// Every reference that must be cut is shown: an `Also cut` paragraph in HTML, a red edge in the graph.
@Suite struct OtherCutsRenderingTests {
    /// The three-cycle fixture whose Group cycle needs a second, different cut: `Member.node`'s
    /// neighbour `Member.group` of the other member is the same fix, a made-up `members[1]` is not.
    static var report: LeakReport {
        var report = GraphFixtures.threeCycleReport
        let index = { (from: Int, to: Int, label: String) in
            report.references.firstIndex { $0.from == from && $0.to == to && $0.label == label }
        }
        report.cycles[0].otherCuts = [
            .init(
                reference: index(2, 0, "group"), from: 2, to: 0, label: "group", reason: "a child refers back to its parent",
                hint: "make it weak var group"),
            .init(reference: index(0, 2, "members[1]"), from: 0, to: 2, label: "members[1]", reason: "a second loop", hint: "remove the member when done"),
        ]
        return report
    }

    @Test func htmlNamesEachDistinctFix() throws {
        let graphs = try SVGRenderer.render(DOTRenderer.graphs(for: Self.report))
        let html = HTMLReport.render(Self.report, graphs: graphs)
        #expect(html.components(separatedBy: "⚠ Also cut:").count == 2, "one paragraph: the repeated group fix is not shown twice")
        #expect(html.contains("⚠ Also cut: <code>Group.members[1]</code>"))
    }

    @Test func graphsDrawEveryCutLikeTheSuspect() {
        let dot = DOTRenderer.graphs(for: Self.report).map(\.text).joined()
        #expect(dot.components(separatedBy: "⚠ suspect: group").count - 1 >= 2)
        #expect(dot.contains("⚠ suspect: members[1]"))
    }
}
