import Foundation
import LeakGraphGraphviz
import LeakGraphRender
import LeakGraphReport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

// XMLParser, not XMLDocument: FoundationXML's XMLDocument crashed here reading attributes of SVG elements
// (which live in the SVG namespace).

/// An element of a parsed XML document.
final class Element {
    let name: String
    let attributes: [String: String]
    var children: [Element] = []
    /// The element's own character data (not its children's).
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// This element and its descendants, in document order.
    var subtree: [Element] {
        var result: [Element] = []
        var stack: [Element] = [self]
        while let element = stack.popLast() {
            result.append(element)
            stack.append(contentsOf: element.children.reversed())
        }
        return result
    }
}

/// An SVG document parsed as XML (with `XMLParser`, which rejects anything not well-formed), with the
/// lookups the tests need.
struct ParsedSVG {
    let root: Element

    /// Parses `svg`; throws when it is not well-formed XML, and fails the test when the root is not `<svg>`.
    init(_ svg: String) throws {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ParseError(description: parser.parserError.map { "\($0)" } ?? "no root element")
        }
        self.root = root
        #expect(root.name == "svg")
    }

    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// Every element named `name`, in document order.
    func elements(_ name: String) -> [Element] {
        root.subtree.filter { $0.name == name }
    }

    /// The `<g class="…">` groups of a class (`node`, `edge`, `cluster`).
    func groups(ofClass className: String) -> [Element] {
        elements("g").filter { $0.attributes["class"] == className }
    }

    /// The text of a group's `<title>`.
    static func title(of group: Element) -> String? {
        group.children.first { $0.name == "title" }?.text
    }

    /// The texts of the `<text>` elements inside `element`.
    static func texts(in element: Element) -> [String] {
        element.subtree.filter { $0.name == "text" }.map(\.text)
    }

    /// The `stroke`, `stroke-dasharray` and `stroke-width` of an edge's `<path>`.
    static func pathStyle(of edge: Element) -> (stroke: String?, dash: String?, width: String?) {
        guard let path = edge.subtree.first(where: { $0.name == "path" }) else { return (nil, nil, nil) }
        return (path.attributes["stroke"], path.attributes["stroke-dasharray"], path.attributes["stroke-width"])
    }

    /// Builds the element tree from the parser's events.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            let element = Element(name: elementName, attributes: attributes)
            if let parent = stack.last {
                parent.children.append(element)
            } else {
                root = element
            }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}

@Suite("SVG renderer")
struct SVGRendererTests {
    @Test("the ring renders to SVG with its nodes, labelled edges, a dashed weak edge and the red suspect")
    func ringSVG() throws {
        let graph = try #require(DOTRenderer.graphs(for: GraphFixtures.ringReport).first)
        let svg = try ParsedSVG(SVGRenderer.render(graph))

        let nodes = svg.groups(ofClass: "node")
        #expect(Set(nodes.compactMap(ParsedSVG.title)) == Set((0 ..< 14).map { "leak\($0)" }))
        let ringNodes = nodes.filter { ParsedSVG.texts(in: $0).contains("DummyObject") }
        #expect(ringNodes.count == 10)
        #expect(nodes.contains { ParsedSVG.texts(in: $0).contains("_ContiguousArrayStorage<LinkedRing.Payload>") })
        #expect(ringNodes.allSatisfy { ParsedSVG.texts(in: $0).contains("32 bytes · main.swift:36") })

        let edges = svg.groups(ofClass: "edge")
        #expect(edges.count == 15)
        func edge(_ from: Int, _ to: Int) throws -> Element {
            try #require(edges.first { ParsedSVG.title(of: $0) == "leak\(from)->leak\(to)" })
        }
        for index in 0 ..< 9 {
            let next = try edge(index, index + 1)
            #expect(ParsedSVG.texts(in: next) == ["next"])
            #expect(ParsedSVG.pathStyle(of: next).stroke == "#c62828")
            #expect(ParsedSVG.pathStyle(of: next).dash == nil)
        }
        let weak = try edge(12, 3)
        #expect(ParsedSVG.texts(in: weak) == ["owner (weak)"])
        #expect(ParsedSVG.pathStyle(of: weak).dash != nil)

        // Written 0 → 9 with `dir=back` (the arrowhead on 0: `SuspectRoutingTests`).
        let suspect = try edge(0, 9)
        #expect(ParsedSVG.texts(in: suspect) == ["⚠ suspect: next"])
        #expect(ParsedSVG.pathStyle(of: suspect).stroke == "red")
        #expect(ParsedSVG.pathStyle(of: suspect).width == "3")
        // Only the suspect is red.
        #expect(edges.filter { ParsedSVG.pathStyle(of: $0).stroke == "red" }.count == 1)
        // Its tooltip carries the reason and the fix.
        let link = try #require(svg.elements("a").first { element in
            element.attributes["xlink:title"]?.contains("Fix: make the closing link weak") == true
        })
        #expect(link.attributes["xlink:title"]?.contains("it closes the ring") == true)
    }

    @Test("names with quotes, ampersands, angle brackets and backslashes reach the SVG unchanged")
    func escapedNames() throws {
        let graphs = DOTRenderer.graphs(for: GraphFixtures.threeCycleReport)
        let rendered = try SVGRenderer.render(graphs)
        #expect(rendered.map(\.graph) == graphs)
        let weird = try ParsedSVG(try #require(rendered.first { $0.graph.name == "cycle-3" }).svg)
        let texts = weird.groups(ofClass: "node").flatMap(ParsedSVG.texts)
        #expect(texts.contains(#"Weird<"quoted"> & \Back"#))
        // The fingerprint `<b>&amp;</b>` is text, not markup.
        #expect(weird.elements("text").contains { $0.text == "fingerprint <b>&amp;</b>" })
        // Each graph's SVG ids carry its name, so several SVGs can share one HTML page.
        let overview = try ParsedSVG(try #require(rendered.first).svg)
        #expect(overview.groups(ofClass: "node").allSatisfy { $0.attributes["id"]?.hasPrefix("graph-overview_") == true })
        #expect(Set(overview.groups(ofClass: "cluster").compactMap(ParsedSVG.title)).count == 4)
    }

    @Test("a 100,000-object ring renders collapsed: a handful of nodes, counted labels")
    func hundredThousandRing() throws {
        let report = GraphFixtures.largeRing(count: 100_000, payloads: 3_000)
        let graphs = DOTRenderer.graphs(for: report)
        #expect(graphs.count == 1)
        let svgText = try SVGRenderer.render(try #require(graphs.first))
        let svg = try ParsedSVG(svgText)
        let nodes = svg.groups(ofClass: "node")
        #expect(nodes.count == 2)
        #expect(svgText.contains("× 100,000"))
        #expect(nodes.flatMap(ParsedSVG.texts).contains("Link × 100,000"))
        #expect(nodes.flatMap(ParsedSVG.texts).contains("Payload × 3,000"))
        let edges = svg.groups(ofClass: "edge")
        #expect(edges.count == 3)
        #expect(edges.flatMap(ParsedSVG.texts).sorted() == ["next ×99,999", "payload ×3,000", "⚠ suspect: next"])
    }

    @Test("a graph past the dot limit is laid out with sfdp")
    func sfdp() throws {
        let graph = DOTRenderer.cycleGraph(
            GraphFixtures.largeRing(count: 100), cycleIndex: 0, options: .init(fullDetailLimit: 100)
        )
        #expect(graph.engine == .sfdp)
        let svg = try ParsedSVG(SVGRenderer.render(graph))
        #expect(svg.groups(ofClass: "node").count == 100)
        #expect(svg.groups(ofClass: "edge").count == 100)
    }

    @Test("invalid DOT is a thrown error with Graphviz's message, and the next render still works")
    func invalidDOT() throws {
        do {
            _ = try SVGRenderer.render(dot: "digraph { a -> }", engine: .dot)
            Issue.record("no error thrown")
        } catch {
            #expect(error.code == .invalidDOT)
            #expect(error.message.hasPrefix("Graphviz could not read the DOT text"))
            #expect(error.message.contains("syntax error"))
        }
        let svg = try SVGRenderer.render(dot: "digraph { a -> b }", engine: .dot)
        #expect(try ParsedSVG(svg).groups(ofClass: "node").count == 2)
    }

    @Test("renders from several tasks at once are serialized and all succeed")
    func concurrentRenders() async throws {
        let graphs = DOTRenderer.graphs(for: GraphFixtures.threeCycleReport)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for graph in graphs + graphs {
                group.addTask { try SVGRenderer.render(graph).count }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(counts.count == 2 * graphs.count)
        #expect(counts.allSatisfy { $0 > 500 })
    }
}
