import LeakGraphModel
import LeakGraphReport

/// Draws a ``LeakReport`` as Graphviz DOT text: one graph per root cycle and one overview.
///
/// A pure function of the report value: the same report gives the same text, byte for byte.
///
/// - **Nodes**: an object shows its type (short name, as in the text report), its size and its creation
///   site (`main.swift:12`: the first backtrace frame with a file and a line that is not
///   compiler-generated); the tooltip adds the full type, address, retain count and function. Cycle
///   members are light red with a bold red border, objects the cycle holds grey, leaked objects outside
///   every cycle light yellow.
/// - **Edges**: labelled with the reference (`next`, `members[2]`); strong references inside the cycle
///   red, other strong references grey; weak, unowned and unmanaged references dashed, labelled with
///   their ownership, and not used for ranking (they are never part of a cycle). The cycle's suspect
///   reference (``LeakReport/Cycle/suspect``, when the report has one) is red, thick and labelled
///   `⚠ suspect: label`, with the reason and the fix in its tooltip.
/// - **Baselines**: a cycle a baseline accepts (``LeakReport/Cycle/suppressed``) is drawn as any other,
///   its title saying `suppressed by the baseline: entry` in grey (the reason in the tooltip).
/// - **Size**: a cycle with its held objects of up to ``Options/fullDetailLimit`` objects (60) is drawn
///   object by object. A larger one is collapsed: members by type (`Link × 100,000 (ring)` with a
///   self-edge `next ×100,000`), held objects by type (`Payload × 3,000`), separately per strongly
///   connected component they form among themselves, labelled `(cycle)`; references between groups are
///   counted per label, with element indices merged (`members[i] ×40`). At most
///   ``Options/collapsedNodeLimit`` groups (150) are drawn; the smallest are merged into one node.
/// - **Layout**: `dot` for graphs of up to ``Options/dotNodeLimit`` nodes (60) and
///   ``Options/dotEdgeLimit`` edges (90), `sfdp` beyond (see ``LayoutEngine``). A 100,000-object ring
///   collapses to one node and lays out in milliseconds.
/// - **Families**: root cycles with one fingerprint (``LeakReport/families``) are drawn once, by their first
///   cycle, titled with their count (`Root cycle #3 and 40 more like it`); the checked code's own families
///   come first, known library leaks last.
/// - **Overview**: every family's first cycle in its own box, four boxes to a row (object by object when
///   what it draws has at most ``Options/fullDetailLimit`` objects, else collapsed), then the leaked objects
///   in no cycle; after ``Options/overviewFamilyLimit`` families, or once ``Options/overviewNodeLimit``
///   nodes are drawn, one note counts the cycles left out (the HTML report links to each).
public enum DOTRenderer {
    /// Size limits of the drawing.
    public struct Options: Sendable, Hashable {
        /// Components (a cycle with what it holds) of at most this many objects are drawn object by
        /// object; larger ones are collapsed by type and strongly connected component. Default 60.
        public var fullDetailLimit: Int
        /// Graphs of at most this many nodes (and ``dotEdgeLimit`` edges) are laid out with `dot`, larger
        /// ones with `sfdp`. Default 60.
        public var dotNodeLimit: Int
        /// Graphs of more than this many edges are laid out with `sfdp` whatever their node count: `dot`'s
        /// crossing minimization is what grows fast (measured here: 60 nodes with 90 edges 0.2 s, with 120
        /// edges 1.5 s; 100 nodes with 150 edges 2–7 s). Default 90.
        public var dotEdgeLimit: Int
        /// The most nodes one collapsed component is drawn with; smaller groups are merged. Default 150.
        public var collapsedNodeLimit: Int
        /// The overview stops adding cycles once it has this many nodes. Default 200.
        public var overviewNodeLimit: Int
        /// At most this many families get a graph of their own (the first ones). Default 100.
        public var cycleGraphLimit: Int
        /// The overview draws at most this many families: more boxes than this cannot be read. Default 12.
        public var overviewFamilyLimit: Int

        /// Creates options; the defaults keep every graph within a second or two of layout.
        public init(
            fullDetailLimit: Int = 60, dotNodeLimit: Int = 60, dotEdgeLimit: Int = 90, collapsedNodeLimit: Int = 150,
            overviewNodeLimit: Int = 200, cycleGraphLimit: Int = 100, overviewFamilyLimit: Int = 12
        ) {
            self.overviewFamilyLimit = overviewFamilyLimit
            self.fullDetailLimit = fullDetailLimit
            self.dotNodeLimit = dotNodeLimit
            self.dotEdgeLimit = dotEdgeLimit
            self.collapsedNodeLimit = collapsedNodeLimit
            self.overviewNodeLimit = overviewNodeLimit
            self.cycleGraphLimit = cycleGraphLimit
        }
    }

    /// The graphs worth drawing for `report`: the overview first when the report has no root cycle,
    /// several families, or leaked objects outside its cycles; then one graph per family, of its first
    /// cycle (at most ``Options/cycleGraphLimit``), in ``LeakReport/families`` order.
    ///
    /// - Complexity: O(*n* + *e*) per graph for *n* leaks and *e* references, plus sorting groups.
    public static func graphs(for report: LeakReport, options: Options = Options()) -> [DOTGraph] {
        let index = ReportIndex(report)
        let families = report.families
        var result: [DOTGraph] = []
        if families.count != 1 || !index.unlistedPositions.isEmpty {
            result.append(overview(index, families: families, options: options))
        }
        for family in families.prefix(max(0, options.cycleGraphLimit)) {
            result.append(
                cycleGraph(index, cycle: family.representative, family: family.cycles.count, options: options))
        }
        return result
    }

    /// The graph of the root cycle at `cycleIndex` in `report.cycles`: its members and what it holds.
    ///
    /// - Precondition: `cycleIndex` is a valid index of `report.cycles`.
    public static func cycleGraph(_ report: LeakReport, cycleIndex: Int, options: Options = Options()) -> DOTGraph {
        precondition(report.cycles.indices.contains(cycleIndex), "no root cycle at index \(cycleIndex)")
        return cycleGraph(ReportIndex(report), cycle: cycleIndex, options: options)
    }

    /// The overview of `report`: every root cycle in a box of its own, then leaked objects in no cycle.
    public static func overviewGraph(_ report: LeakReport, options: Options = Options()) -> DOTGraph {
        overview(ReportIndex(report), families: report.families, options: options)
    }

    // MARK: Building

    static func cycleGraph(_ index: ReportIndex, cycle: Int, family: Int = 1, options: Options) -> DOTGraph {
        let report = index.report
        let value = report.cycles[cycle]
        let members = index.positions(of: value.members)
        let memberSet = Set(members)
        let held = index.positions(of: value.holds).filter { !memberSet.contains($0) }
        var builder = GraphBuilder(index: index)
        if members.count + held.count <= options.fullDetailLimit {
            builder.addObjects(members, role: .member, cycle: cycle, cluster: nil)
            builder.addObjects(held, role: .held, cycle: cycle, cluster: nil)
        } else {
            builder.addCollapsed(
                members: members, held: held, heldRole: .held, cycle: cycle, idPrefix: "",
                nodeLimit: options.collapsedNodeLimit, cluster: nil
            )
        }
        let edges = builder.edges(suspects: suspectReferences(index, cycles: [cycle]))
        let engine = engine(nodeCount: builder.nodes.count, edgeCount: edges.count, options: options)

        let summary = CycleSummary(index, members: members, held: held)
        let alike = family > 1 ? " and \(ReportNaming.grouped(family - 1)) more like it" : ""
        let title = "Root cycle #\(cycle + 1)\(alike): \(summary.memberText)"
        // Text after a bold run starts with a no-break space: SVG drops a leading ordinary space.
        var label =
            "<B>\(DOTText.htmlEscaped("Root cycle #\(cycle + 1)\(alike)"))</B>"
            + DOTText.htmlEscaped("\u{A0}· \(summary.memberText)")
        if !held.isEmpty {
            label += DOTText.htmlEscaped(" · holds \(summary.heldText)")
        }
        if value.isOrphan, let member = members.first {
            label += DOTText.htmlEscaped(" · orphan: \(ReportNaming.orphanText(report.leaks[member]))")
        }
        if builder.isCollapsed {
            label += DOTText.htmlEscaped(" · collapsed by type")
        }
        var tooltip = [title]
        // Detail lines in grey at the title's size: Graphviz spaces lines of a smaller size too tightly.
        // The fix hint is in the tooltips of the graph and of the suspect edge, not in the title.
        var smallLines: [String] = []
        if let suspect = value.suspect, let name = suspectName(index, value) {
            label +=
                "<BR/><FONT COLOR=\"\(GraphStyle.suspectColor)\">"
                + DOTText.htmlEscaped("⚠ suspect: \(name)") + "</FONT>"
            tooltip.append(
                "⚠ suspect: \(name) — \(CodeSpans.plain(suspect.reason))\nFix: \(CodeSpans.plain(suspect.hint))")
        }
        if let fingerprint = value.fingerprint {
            smallLines.append("fingerprint \(fingerprint)")
            tooltip.append("fingerprint \(fingerprint)")
        }
        if value.knownLibraryLeak != nil {
            smallLines.append("not your code: a known library leak")
            tooltip.append("not your code: \(value.knownLibraryLeak ?? "")")
        }
        if let suppressed = value.suppressed {
            smallLines.append("suppressed by the baseline: \(suppressed.entry)")
            tooltip.append(
                "suppressed by the baseline \(suppressed.baseline): \(suppressed.entry)"
                    + (suppressed.reason.map { " — \($0)" } ?? ""))
        }
        for line in smallLines {
            label +=
                "<BR/><FONT COLOR=\"\(GraphStyle.detailColor)\">"
                + DOTText.htmlEscaped(line) + "</FONT>"
        }
        let name = "cycle-\(cycle + 1)"
        return DOTGraph(
            subject: .cycle(cycle), name: name, title: title,
            text: builder.dotText(
                name: name, label: label, tooltip: tooltip.joined(separator: "\n"), engine: engine, edges: edges),
            engine: engine, nodeCount: builder.nodes.count, edgeCount: edges.count, isCollapsed: builder.isCollapsed
        )
    }

    static func overview(_ index: ReportIndex, families: [LeakReport.Family], options: Options) -> DOTGraph {
        let report = index.report
        var builder = GraphBuilder(index: index)
        let unlisted = index.unlistedPositions
        let shown = families.prefix(max(0, options.overviewFamilyLimit))
        let drawnObjects = shown.reduce(unlisted.count) { total, family in
            let cycle = report.cycles[family.representative]
            return total + cycle.members.count + cycle.holds.count
        }
        let full = drawnObjects <= options.fullDetailLimit
        var drawnCycles: [Int] = []
        var drawnFamilyCycles = 0
        for family in shown {
            let cycle = family.representative
            let value = report.cycles[cycle]
            let remaining = options.overviewNodeLimit - builder.nodes.count
            guard remaining > 0 else { break }
            drawnFamilyCycles += family.cycles.count
            let members = index.positions(of: value.members)
            let memberSet = Set(members)
            let held = index.positions(of: value.holds).filter { !memberSet.contains($0) }
            let summary = CycleSummary(index, members: members, held: held)
            var text = DOTText.htmlEscaped("\u{A0}· \(summary.memberText)")
            if !held.isEmpty {
                text += DOTText.htmlEscaped(" · holds \(summary.heldText)")
            }
            if let name = suspectName(index, value) {
                text +=
                    "<BR/><FONT COLOR=\"\(GraphStyle.suspectColor)\">"
                    + DOTText.htmlEscaped("⚠ suspect: \(name)") + "</FONT>"
            }
            if value.knownLibraryLeak != nil {
                text += "<BR/><FONT COLOR=\"\(GraphStyle.detailColor)\">not your code: a known library leak</FONT>"
            }
            if value.suppressed != nil {
                text += "<BR/><FONT COLOR=\"\(GraphStyle.detailColor)\">suppressed by the baseline</FONT>"
            }
            let alike =
                family.cycles.count > 1 ? " and \(ReportNaming.grouped(family.cycles.count - 1)) more like it" : ""
            let cluster = builder.addCluster(
                id: "cycle-\(cycle + 1)",
                label: "<B>\(DOTText.htmlEscaped("Root cycle #\(cycle + 1)\(alike)"))</B>" + text,
                tooltip: "Root cycle #\(cycle + 1)\(alike): \(summary.memberText)"
            )
            if full {
                builder.addObjects(members, role: .member, cycle: cycle, cluster: cluster)
                builder.addObjects(held, role: .held, cycle: cycle, cluster: cluster)
            } else {
                builder.addCollapsed(
                    members: members, held: held, heldRole: .held, cycle: cycle, idPrefix: "c\(cycle + 1)_",
                    nodeLimit: min(options.collapsedNodeLimit, max(remaining, minimumClusterNodes)), cluster: cluster
                )
            }
            drawnCycles.append(cycle)
        }
        let skipped = report.cycles.count - drawnFamilyCycles
        if !unlisted.isEmpty, builder.nodes.count < options.overviewNodeLimit {
            let bytes = unlisted.reduce(0) { $0 + report.leaks[$1].size }
            let cluster = builder.addCluster(
                id: "other",
                label: "<B>Other leaked objects</B>"
                    + DOTText.htmlEscaped(
                        "\u{A0}· \(ReportNaming.count(unlisted.count, "object")), \(ReportNaming.count(bytes, "byte"))"
                    ),
                tooltip: "Leaked objects outside every root cycle"
            )
            if full {
                builder.addObjects(unlisted, role: .unlisted, cycle: nil, cluster: cluster)
            } else {
                builder.addCollapsed(
                    members: [], held: unlisted, heldRole: .unlisted, cycle: nil, idPrefix: "other_",
                    nodeLimit: min(options.collapsedNodeLimit, options.overviewNodeLimit - builder.nodes.count),
                    cluster: cluster
                )
            }
        }
        if skipped > 0 {
            builder.addNote(id: "more", text: "… and \(ReportNaming.count(skipped, "more root cycle")) not drawn")
        }
        if report.leaks.isEmpty {
            builder.addNote(id: "none", text: "No leaks found.")
        }
        let edges = builder.edges(suspects: suspectReferences(index, cycles: drawnCycles))
        let engine = engine(nodeCount: builder.nodes.count, edgeCount: edges.count, options: options)

        let program = ReportNaming.programName(report.program)
        let summary = report.summary
        let title =
            "\(program): \(ReportNaming.count(summary.leakedObjects, "leaked object")), "
            + "\(ReportNaming.count(summary.leakedBytes, "byte")) in \(ReportNaming.count(summary.rootCycles, "root cycle"))"
        let label =
            "<B>\(DOTText.htmlEscaped(program))</B>"
            + DOTText.htmlEscaped(
                "\u{A0}· \(ReportNaming.count(summary.leakedObjects, "leaked object")), "
                    + "\(ReportNaming.count(summary.leakedBytes, "byte")) · "
                    + ReportNaming.count(summary.rootCycles, "root cycle")
            )
        return DOTGraph(
            subject: .overview, name: "overview", title: title,
            text: builder.dotText(
                name: "overview", label: label, tooltip: title, engine: engine, edges: edges,
                gridColumns: overviewColumns
            ),
            engine: engine, nodeCount: builder.nodes.count, edgeCount: edges.count, isCollapsed: builder.isCollapsed
        )
    }

    /// `DummyObject.next`: the suspect's source type and path (``ReportNaming/referenceText(type:path:)``);
    /// `nil` for a known library leak, which is not the reader's to fix (its graphs mark no suspect).
    static func suspectName(_ index: ReportIndex, _ cycle: LeakReport.Cycle) -> String? {
        guard cycle.knownLibraryLeak == nil else { return nil }
        return cycle.suspect.map { cutName(index, $0) }
    }

    /// `Type.label` of a suspect or another cut (its label alone when it names no reference of the report).
    static func cutName(_ index: ReportIndex, _ suspect: LeakReport.Suspect) -> String {
        guard let reference = index.referenceIndex(of: suspect) else { return suspect.label }
        let value = index.report.references[reference]
        guard let from = index.position[value.from] else { return value.label }
        return ReportNaming.referenceText(type: index.typeName(from), path: value.path)
    }

    /// The overview (when laid out with `dot`) puts its cycles in rows of this many.
    static let overviewColumns = 4

    /// The overview gives a cycle at least this many nodes even when that overshoots its node limit a
    /// little, rather than squeezing the last cycle drawn into one merged node.
    static let minimumClusterNodes = 10

    /// `dot` up to ``Options/dotNodeLimit`` nodes and ``Options/dotEdgeLimit`` edges, `sfdp` beyond.
    static func engine(nodeCount: Int, edgeCount: Int, options: Options) -> LayoutEngine {
        nodeCount <= options.dotNodeLimit && edgeCount <= options.dotEdgeLimit ? .dot : .sfdp
    }

    /// Each listed cycle's suspect, by the index of its reference in `report.references`.
    static func suspectReferences(_ index: ReportIndex, cycles: [Int]) -> [Int: LeakReport.Suspect] {
        var result: [Int: LeakReport.Suspect] = [:]
        for cycle in cycles {
            let value = index.report.cycles[cycle]
            guard value.knownLibraryLeak == nil else { continue }
            for cut in [value.suspect].compactMap({ $0 }) + (value.otherCuts ?? []) {
                if let reference = index.referenceIndex(of: cut) {
                    result[reference] = cut
                }
            }
        }
        return result
    }
}

/// Counts and bytes of a cycle, as its titles show them.
struct CycleSummary {
    let memberCount: Int
    let memberBytes: Int
    let heldCount: Int
    let heldBytes: Int

    init(_ index: ReportIndex, members: [Int], held: [Int]) {
        let leaks = index.report.leaks
        memberCount = members.count
        memberBytes = members.reduce(0) { $0 + leaks[$1].size }
        heldCount = held.count
        heldBytes = held.reduce(0) { $0 + leaks[$1].size }
    }

    /// `10 objects, 320 bytes`.
    var memberText: String {
        "\(ReportNaming.count(memberCount, "object")), \(ReportNaming.count(memberBytes, "byte"))"
    }

    /// `4 objects, 200 bytes`.
    var heldText: String {
        "\(ReportNaming.count(heldCount, "object")), \(ReportNaming.count(heldBytes, "byte"))"
    }
}
