import LeakGraphModel
@testable import LeakGraphRender
import LeakGraphReport
import LeakGraphTestSupport
import Testing

@Suite("DOT renderer")
struct DOTRendererTests {
    @Test("the LinkedRing-like report draws one cycle graph, as the golden file")
    func ringGolden() throws {
        let graphs = DOTRenderer.graphs(for: GraphFixtures.ringReport)
        #expect(graphs.map(\.name) == ["cycle-1"])
        let graph = try #require(graphs.first)
        #expect(graph.subject == .cycle(0))
        #expect(graph.engine == .dot)
        #expect(!graph.isCollapsed)
        #expect(graph.nodeCount == 14)
        #expect(graph.edgeCount == 15)
        try expectMatchesGolden(graph.text, named: "ring-cycle-1.dot")
    }

    @Test("three cycles and an object outside them draw an overview and three cycle graphs, as the golden files")
    func threeCyclesGolden() throws {
        let graphs = DOTRenderer.graphs(for: GraphFixtures.threeCycleReport)
        #expect(graphs.map(\.name) == ["overview", "cycle-1", "cycle-2", "cycle-3"])
        #expect(graphs.map(\.subject) == [.overview, .cycle(0), .cycle(1), .cycle(2)])
        for graph in graphs {
            try expectMatchesGolden(graph.text, named: "three-\(graph.name).dot")
        }
        // The overview draws every leak, the orphan included, in one box per cycle plus one for the rest.
        let overview = graphs[0]
        #expect(overview.nodeCount == 9)
        #expect(overview.text.components(separatedBy: "subgraph \"cluster_").count - 1 == 4)
    }

    @Test("the same report always gives the same text")
    func deterministic() {
        let report = GraphFixtures.threeCycleReport
        #expect(DOTRenderer.graphs(for: report) == DOTRenderer.graphs(for: report))
        let large = GraphFixtures.manyTypes(ringSize: 70, heldTypes: 40)
        #expect(DOTRenderer.graphs(for: large) == DOTRenderer.graphs(for: large))
    }

    @Test("a report without leaks draws one overview that says so")
    func clean() throws {
        let graphs = DOTRenderer.graphs(for: GraphFixtures.cleanReport)
        let graph = try #require(graphs.first)
        #expect(graphs.count == 1)
        #expect(graph.subject == .overview)
        #expect(graph.text.contains("No leaks found."))
        #expect(graph.nodeCount == 1)
    }

    @Test("cycle members, held objects, weak edges and the suspect get their styles")
    func styles() throws {
        let text = try #require(DOTRenderer.graphs(for: GraphFixtures.ringReport).first).text
        let lines = text.split(separator: "\n").map(String.init)
        func line(_ prefix: String) throws -> String {
            try #require(lines.first { $0.hasPrefix("  " + prefix) }, "no line starting with \(prefix)")
        }
        #expect(try line("\"leak0\" [").contains("fillcolor=\"#ffd9d9\", color=\"#c62828\", penwidth=2"))
        #expect(try line("\"leak10\" [").contains("fillcolor=\"#e6e6e6\""))
        #expect(try line("\"leak0\" -> \"leak1\"").contains("color=\"#c62828\""))
        let weak = try line("\"leak12\" -> \"leak3\"")
        #expect(weak.contains("label=\"owner (weak)\""))
        #expect(weak.contains("style=\"dashed\""))
        #expect(weak.contains("constraint=false"))
        // The suspect 9 → 0 is written from its target and drawn backwards, so it is ranked like the
        // rest of the ring (see `SuspectRoutingTests`).
        let suspect = try line("\"leak0\" -> \"leak9\"")
        #expect(suspect.contains("dir=back"))
        #expect(!suspect.contains("constraint"))
        #expect(!lines.contains { $0.hasPrefix("  \"leak9\" -> \"leak0\"") })
        #expect(suspect.contains("label=\"⚠ suspect: next\""))
        #expect(suspect.contains("color=\"red\""))
        #expect(suspect.contains("penwidth=3"))
        #expect(suspect.contains("Fix: make the closing link weak"))
        // Node labels: short type, size, creation site (the allocating initializer's frame is skipped).
        #expect(try line("\"leak0\" [").contains("<B>DummyObject</B>"))
        #expect(try line("\"leak0\" [").contains("32 bytes · main.swift:36"))
        #expect(try line("\"leak10\" [").contains("48 bytes · Payload.swift:4"))
    }

    @Test("a cycle without suspect or fingerprint has neither in its graph")
    func withoutSuspect() throws {
        let graph = DOTRenderer.cycleGraph(GraphFixtures.threeCycleReport, cycleIndex: 1)
        #expect(!graph.text.contains("suspect"))
        #expect(!graph.text.contains("fingerprint"))
        #expect(!graph.text.contains("color=\"red\""))
        // The unowned back-reference is dashed and labelled with its ownership.
        #expect(graph.text.contains("label=\"delegate (unowned)\""))
    }

    @Test("components of up to 60 objects are drawn object by object, larger ones collapsed")
    func collapseThreshold() {
        let small = DOTRenderer.cycleGraph(GraphFixtures.largeRing(count: 60), cycleIndex: 0)
        #expect(!small.isCollapsed)
        #expect(small.nodeCount == 60)
        #expect(small.engine == .dot)
        let large = DOTRenderer.cycleGraph(GraphFixtures.largeRing(count: 61), cycleIndex: 0)
        #expect(large.isCollapsed)
        #expect(large.nodeCount == 1)
        #expect(large.text.contains("<B>Link × 61</B>\u{A0}(ring)"))
        #expect(large.engine == .dot)
    }

    @Test("a 100,000-object ring with 3,000 payloads collapses to two nodes with counted edges")
    func hundredThousandRing() throws {
        let graph = DOTRenderer.cycleGraph(GraphFixtures.largeRing(count: 100_000, payloads: 3_000), cycleIndex: 0)
        #expect(graph.isCollapsed)
        #expect(graph.nodeCount == 2)
        #expect(graph.engine == .dot)
        #expect(graph.text.contains("<B>Link × 100,000</B>\u{A0}(ring)"))
        #expect(graph.text.contains("<B>Payload × 3,000</B>"))
        #expect(graph.text.contains("1,600,000 bytes · main.swift:9"))
        // The ring's references: one counted self-edge, and the suspect drawn apart on the left.
        #expect(graph.text.contains("\"g0\" -> \"g0\" [label=\"next ×99,999\""))
        let suspect = try #require(graph.text.split(separator: "\n").first { $0.contains("⚠ suspect: next\"") })
        #expect(suspect.contains("\"g0\" -> \"g0\""))
        #expect(suspect.contains("tailport=\"w\""))
        #expect(graph.text.contains("\"g0\" -> \"g1\" [label=\"payload ×3,000\""))
    }

    @Test("many held types are grouped, the smallest merged, and large graphs are laid out with sfdp")
    func manyGroups() {
        // 61 objects: collapsed; 1 keeper group + 100 animal groups → sfdp.
        let report = GraphFixtures.manyTypes(ringSize: 5, heldTypes: 100)
        let graph = DOTRenderer.cycleGraph(report, cycleIndex: 0)
        #expect(graph.isCollapsed)
        #expect(graph.nodeCount == 101)
        #expect(graph.engine == .sfdp)
        #expect(graph.text.contains("overlap=\"prism\""))
        #expect(graph.text.contains("label=\"animals[i]\""))

        // A limit of 20 nodes keeps the keepers and the 18 largest animal types, and merges 82 types.
        let limited = DOTRenderer.cycleGraph(report, cycleIndex: 0, options: .init(collapsedNodeLimit: 20))
        #expect(limited.nodeCount == 20)
        #expect(limited.engine == .dot)
        #expect(limited.text.contains("<B>82 objects of 82 more types</B>"))
        #expect(limited.text.contains("Animal99"))
        #expect(!limited.text.contains("<B>Animal0</B>"))
        // 82 references to the merged node, counted by their merged label.
        #expect(limited.text.contains("label=\"animals[i] ×82\""))
    }

    @Test("full detail past the dot limit is laid out with sfdp")
    func sfdpForFullDetail() {
        let graph = DOTRenderer.cycleGraph(
            GraphFixtures.largeRing(count: 100), cycleIndex: 0, options: .init(fullDetailLimit: 100)
        )
        #expect(!graph.isCollapsed)
        #expect(graph.nodeCount == 100)
        #expect(graph.engine == .sfdp)
    }

    @Test("a small graph with many edges is laid out with sfdp")
    func sfdpForManyEdges() {
        var builder = GraphFixtures.Builder()
        for _ in 0 ..< 40 { builder.leak("Web.Node", cycle: 0) }
        for index in 0 ..< 40 {
            builder.ref(index, (index + 1) % 40, "next")
            builder.ref(index, (index + 7) % 40, "jump")
            if index % 2 == 0 { builder.ref(index, (index + 13) % 40, "far") }
        }
        let report = builder.report(cycles: [.init(id: 0, members: Array(0 ..< 40), holds: [])])
        let graph = DOTRenderer.cycleGraph(report, cycleIndex: 0)
        #expect(!graph.isCollapsed)
        #expect(graph.nodeCount == 40)
        #expect(graph.edgeCount == 100)
        #expect(graph.engine == .sfdp)
        #expect(DOTRenderer.cycleGraph(report, cycleIndex: 0, options: .init(dotEdgeLimit: 100)).engine == .dot)
    }

    @Test("the overview of a large report collapses every cycle and stops at its node limit")
    func overviewLimit() {
        var builder = GraphFixtures.Builder()
        var cycles: [LeakReport.Cycle] = []
        for cycle in 0 ..< 40 {
            let first = builder.leak("App.A", cycle: cycle)
            let second = builder.leak("App.B", cycle: cycle)
            builder.ref(first, second, "b")
            builder.ref(second, first, "a")
            cycles.append(.init(id: cycle, members: [first, second], holds: []))
        }
        let report = builder.report(cycles: cycles)
        // By default the overview draws twelve families and counts the rest.
        let readable = DOTRenderer.overviewGraph(report)
        #expect(!readable.isCollapsed && readable.nodeCount == 25)
        #expect(readable.text.contains("… and 28 more root cycles not drawn"))
        let overview = DOTRenderer.overviewGraph(report, options: .init(overviewNodeLimit: 21, overviewFamilyLimit: 100))
        #expect(overview.isCollapsed)
        // 80 objects, so collapsed: two groups per cycle; after 11 cycles there are 22 nodes, then one
        // note for the 29 others.
        #expect(overview.nodeCount == 23)
        #expect(overview.text.contains("… and 29 more root cycles not drawn"))
        let graphs = DOTRenderer.graphs(for: report, options: .init(cycleGraphLimit: 5))
        #expect(graphs.map(\.name) == ["overview", "cycle-1", "cycle-2", "cycle-3", "cycle-4", "cycle-5"])
    }

    @Test("the overview puts its cycles in rows of four, each row below an invisible point")
    func overviewRows() throws {
        var builder = GraphFixtures.Builder()
        var cycles: [LeakReport.Cycle] = []
        for cycle in 0 ..< 6 {
            let first = builder.leak("App.A", cycle: cycle)
            let second = builder.leak("App.B", cycle: cycle)
            builder.ref(first, second, "b")
            builder.ref(second, first, "a")
            cycles.append(.init(id: cycle, members: [first, second], holds: []))
        }
        let overview = DOTRenderer.overviewGraph(builder.report(cycles: cycles))
        #expect(overview.engine == .dot)
        #expect(!overview.isCollapsed)
        let lines = overview.text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("[shape=\"point\", style=\"invis\"") } == [
            "  \"row1\" [shape=\"point\", style=\"invis\", width=0, height=0, label=\"\"]"
        ])
        // Every node of the first four cycles points to the row's anchor; the anchor to every node of cycles
        // 5 and 6, pulled up to it, so their clusters start on one line.
        #expect(lines.filter { $0.hasSuffix(" -> \"row1\" [style=\"invis\", arrowhead=\"none\"]") }.count == 8)
        #expect(lines.filter { $0.hasPrefix("  \"row1\" -> ") }.sorted() == (8 ..< 12).map {
            "  \"row1\" -> \"leak\($0)\" [style=\"invis\", arrowhead=\"none\", weight=10]"
        }.sorted())
        // Three cycles fit in one row: no anchor.
        let small = DOTRenderer.overviewGraph(GraphFixtures.threeCycleReport)
        #expect(!small.text.contains("\"row1\""))
    }

    @Test("DOT strings escape backslashes, quotes, ampersands, line breaks and control characters")
    func escaping() {
        #expect(DOTText.quoted(#"a "b" \c"#) == #""a \"b\" \\c""#)
        #expect(DOTText.quoted("x\ny") == #""x\ny""#)
        #expect(DOTText.quoted("&lt;") == #""&amp;lt;""#)
        #expect(DOTText.quoted("a\u{7}b") == "\"a\u{FFFD}b\"")
        #expect(DOTText.quoted("ends with \\") == #""ends with \\""#)
        #expect(DOTText.quotedTooltip(#"\N"#) == "\"\u{29F5}N\"")
        #expect(DOTText.htmlEscaped(#"<T> & "q" 'a'"#) == "&lt;T&gt; &amp; &quot;q&quot; &#39;a&#39;")
    }

    @Test("element indices are merged in collapsed labels")
    func labelNormalization() {
        let style = ReferencePath.SubscriptStyle.placeholder("i")
        #expect(ReferencePath([.element(12)]).text(subscripts: style) == "[i]")
        #expect(ReferencePath([.element(5), .property("next")]).text(subscripts: style) == "[i].next")
        #expect(ReferencePath([.capture(1), .closureContext]).text(subscripts: style) == "capture[i] (closure)")
        #expect(ReferencePath([.dictionaryValue(DictionaryKey(kind: .string, text: "\"b\""))]).text(subscripts: style) == "[\"b\"]")
        #expect(ReferencePath([.property("next")]).text(subscripts: style) == "next")
    }
}
