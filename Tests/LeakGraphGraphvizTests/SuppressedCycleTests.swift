import LeakGraphGraphviz
import LeakGraphRender
import LeakGraphReport
import Testing

/// A cycle a baseline accepts is still drawn, and marked: its graph's title, the overview's box, the
/// HTML table row and section.
@Suite("Cycles suppressed by a baseline in graphs and HTML")
struct SuppressedCycleTests {
    static var report: LeakReport {
        var report = GraphFixtures.threeCycleReport
        report.cycles[1].suppressed = .init(
            baseline: "ci/leakgraph.baseline", entry: "type: Chat.*", line: 3, reason: "chat groups live forever")
        return report
    }

    @Test("the suppressed cycle's graph and overview box say so; the others do not")
    func dot() throws {
        let graphs = DOTRenderer.graphs(for: Self.report)
        let cycleGraphs = graphs.filter { if case .cycle = $0.subject { return true } else { return false } }
        #expect(cycleGraphs.count == 3)
        // Families of the code's own first, then those a baseline accepts.
        let marked = cycleGraphs.map { $0.text.contains("suppressed by the baseline: type: Chat.*") }
        #expect(marked == [false, false, true])
        let overview = try #require(graphs.first { $0.subject == .overview })
        #expect(overview.text.components(separatedBy: "suppressed by the baseline").count == 2, "one box marked")
        #expect(!DOTRenderer.graphs(for: GraphFixtures.threeCycleReport).contains { $0.text.contains("suppressed") })
    }

    @Test("the HTML page greys the cycle's row and section and names the entry and reason")
    func html() {
        let page = HTMLReport.render(Self.report, graphs: [])
        #expect(page.contains("<tr class=\"suppressed\"><td><a href=\"#cycle-2\">#2</a> <span class=\"suppressed-tag\">suppressed</span></td>"))
        #expect(page.contains("<section class=\"cycle suppressed\" id=\"cycle-2\">"))
        #expect(page.contains("<section class=\"cycle\" id=\"cycle-1\">"))
        #expect(page.contains("Suppressed by the baseline: <code>type: Chat.*</code> <span class=\"muted\">(ci/leakgraph.baseline, line 3)</span> — chat groups live forever."))
        #expect(page.contains("<p class=\"verdict baseline\">2 new leaks, 1 suppressed by the baseline (root cycles).</p>"))
        let plain = HTMLReport.render(GraphFixtures.threeCycleReport, graphs: [])
        #expect(!plain.contains("cycle suppressed") && !plain.contains("suppressed-tag\">") && !plain.contains("verdict baseline\">"))
    }
}
