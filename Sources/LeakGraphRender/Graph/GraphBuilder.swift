import LeakGraphModel
import LeakGraphReport

/// The nodes and edges of one graph, built from a report before they are written as DOT.
///
/// Objects are added either one node per object (``addObjects(_:role:cycle:cluster:)``) or collapsed
/// into groups (``addCollapsed(members:held:heldRole:cycle:idPrefix:nodeLimit:cluster:)``); ``edges(suspects:)``
/// then draws the references between whatever nodes hold their two ends. Everything is in report order,
/// so the same report always gives the same DOT text.
struct GraphBuilder {
    /// What a node stands for.
    enum Role: Equatable {
        /// Member(s) of a root cycle.
        case member
        /// Object(s) a root cycle holds.
        case held
        /// Leaked object(s) listed under no cycle.
        case unlisted
        /// A text note, not objects.
        case note
    }

    /// How an edge is drawn.
    enum EdgeKind: Hashable {
        /// A strong reference between members of one root cycle.
        case cycle
        /// Any other strong reference.
        case strong
        /// A weak, unowned or unmanaged reference (never part of a cycle).
        case notStrong
        /// The root cycle's suspect reference.
        case suspect
    }

    /// One node.
    struct Node {
        /// The DOT node id (`leak12` for an object, `c1_g0` for a group).
        var id: String
        /// The HTML-like label, without the enclosing `<` `>`.
        var label: String
        /// The tooltip (plain text).
        var tooltip: String
        /// What it stands for.
        var role: Role
        /// The position in `report.cycles` of the cycle it belongs to or is held by.
        var cycle: Int?
        /// Whether it stands for several objects.
        var isGroup: Bool
        /// The cluster (overview box) it is drawn in.
        var cluster: Int?
        /// The short type name used in edge tooltips (`DummyObject`), or the note's text.
        var name: String
    }

    /// One edge.
    struct Edge {
        var from: Int
        var to: Int
        var label: String
        var tooltip: String
        var kind: EdgeKind
    }

    /// A box around the nodes of one cycle (overview only).
    struct Cluster {
        var id: String
        var label: String
        var tooltip: String
    }

    /// The report being drawn.
    let index: ReportIndex
    /// Nodes in drawing order.
    private(set) var nodes: [Node] = []
    /// Clusters in drawing order.
    private(set) var clusters: [Cluster] = []
    /// Per leak position: the node that shows it, or -1.
    private var nodeOfLeak: [Int]
    /// Whether any objects were collapsed into groups.
    private(set) var isCollapsed = false

    /// The most labels written on one collapsed edge before `+N more`.
    static let labelsPerCollapsedEdge = 3
    /// The longest type name written in a label before it is shortened with `…` (tooltips keep it all).
    static let labelNameLimit = 60

    init(index: ReportIndex) {
        self.index = index
        self.nodeOfLeak = [Int](repeating: -1, count: index.report.leaks.count)
    }

    /// Adds a cluster and returns its number.
    mutating func addCluster(id: String, label: String, tooltip: String) -> Int {
        clusters.append(Cluster(id: id, label: label, tooltip: tooltip))
        return clusters.count - 1
    }

    /// Adds a note node (plain text).
    mutating func addNote(id: String, text: String, cluster: Int? = nil) {
        nodes.append(
            Node(
                id: id, label: DOTText.htmlEscaped(text), tooltip: text, role: .note, cycle: nil, isGroup: false,
                cluster: cluster, name: text
            )
        )
    }

    // MARK: Objects one by one

    /// Adds one node per object at `positions` (skipping objects already shown).
    mutating func addObjects(_ positions: [Int], role: Role, cycle: Int?, cluster: Int?) {
        let report = index.report
        for position in positions where nodeOfLeak[position] == -1 {
            let leak = report.leaks[position]
            let name = index.typeName(position)
            let site = ReportNaming.creationSite(of: leak)
            var detail = ReportNaming.count(leak.size, "byte")
            if let place = site?.place {
                detail += " · " + place
            }
            let label =
                "<B>\(DOTText.htmlEscaped(Self.shortened(name)))</B><BR/>"
                + "<FONT POINT-SIZE=\"9\" COLOR=\"\(GraphStyle.detailColor)\">\(DOTText.htmlEscaped(detail))</FONT>"
            var tooltip = [
                "\(leak.type) (\(leak.kind))",
                "\(leak.address) · \(ReportNaming.count(leak.size, "byte")) · retain count \(leak.retainCount)",
            ]
            if let site {
                tooltip.append("created at \(site.text)")
            }
            tooltip.append(Self.roleText(role, cycle: cycle))
            nodeOfLeak[position] = nodes.count
            nodes.append(
                Node(
                    id: "leak\(leak.id)", label: label, tooltip: tooltip.joined(separator: "\n"), role: role,
                    cycle: cycle, isGroup: false, cluster: cluster, name: name
                )
            )
        }
    }

    // MARK: Collapsed groups

    /// Adds `members` and `held` collapsed into groups: members by type (they form one strongly connected
    /// component, the root cycle); held objects by type, separately for each strongly connected component
    /// of more than one object (or with a self-reference) among them. With more than `nodeLimit` groups,
    /// the smallest (by bytes) are merged into one node.
    ///
    /// - Complexity: O(*n* + *e*) for the objects and their references, plus sorting the groups.
    mutating func addCollapsed(
        members: [Int], held: [Int], heldRole: Role, cycle: Int?, idPrefix: String, nodeLimit: Int, cluster: Int?
    ) {
        let members = members.filter { nodeOfLeak[$0] == -1 }
        let held = held.filter { nodeOfLeak[$0] == -1 }
        guard !members.isEmpty || !held.isEmpty else { return }
        isCollapsed = true
        let report = index.report

        // Group keys: members by type; held objects by (component if cyclic, type).
        struct Key: Hashable {
            var isMember: Bool
            var component: Int
            var type: String
        }
        let heldComponents = cyclicComponents(of: held)
        var groupOf: [Key: Int] = [:]
        var groups: [Group] = []
        func add(_ position: Int, _ key: Key) {
            let group: Int
            if let known = groupOf[key] {
                group = known
            } else {
                group = groups.count
                groupOf[key] = group
                groups.append(
                    Group(isMember: key.isMember, isCyclic: key.component >= 0, type: report.leaks[position].type))
            }
            groups[group].positions.append(position)
            groups[group].bytes += report.leaks[position].size
        }
        for position in members {
            add(position, Key(isMember: true, component: -1, type: report.leaks[position].type))
        }
        for (offset, position) in held.enumerated() {
            add(position, Key(isMember: false, component: heldComponents[offset], type: report.leaks[position].type))
        }

        // Too many groups: keep the largest (members first), merge the rest.
        var merged: Group?
        let limit = max(1, nodeLimit)
        if groups.count > limit {
            let ranked = groups.indices.sorted { a, b in
                if groups[a].isMember != groups[b].isMember { return groups[a].isMember }
                if groups[a].bytes != groups[b].bytes { return groups[a].bytes > groups[b].bytes }
                return a < b
            }
            let kept = Set(ranked.prefix(limit - 1))
            var rest = Group(isMember: false, isCyclic: false, type: "")
            var restTypes = Set<String>()
            for group in groups.indices where !kept.contains(group) {
                rest.positions += groups[group].positions
                rest.bytes += groups[group].bytes
                rest.isMember = rest.isMember || groups[group].isMember
                restTypes.insert(groups[group].type)
            }
            rest.mergedTypes = restTypes.count
            groups = groups.indices.filter { kept.contains($0) }.map { groups[$0] }
            merged = rest
        }
        if let merged {
            groups.append(merged)
        }

        let ring = isSimpleRing(members)
        for (number, group) in groups.enumerated() {
            let role: Role = group.isMember ? .member : heldRole
            let node = groupNode(
                group, id: "\(idPrefix)g\(number)", role: role, ring: ring, cycle: cycle, cluster: cluster)
            for position in group.positions {
                nodeOfLeak[position] = nodes.count
            }
            nodes.append(node)
        }
    }

    /// Objects collapsed into one node.
    private struct Group {
        var isMember: Bool
        var isCyclic: Bool
        var type: String
        var positions: [Int] = []
        var bytes = 0
        /// For the node that merges the smallest groups: how many types it merged (else 0).
        var mergedTypes = 0
    }

    private func groupNode(_ group: Group, id: String, role: Role, ring: Bool, cycle: Int?, cluster: Int?) -> Node {
        let report = index.report
        let count = group.positions.count
        var siteCounts: [ReportNaming.CreationSite: Int] = [:]
        var siteOrder: [ReportNaming.CreationSite] = []
        var cache = ReportNaming.CreationSiteCache()
        for position in group.positions {
            if let site = cache.site(report.leaks[position].backtrace) {
                if siteCounts[site] == nil { siteOrder.append(site) }
                siteCounts[site, default: 0] += 1
            }
        }
        let places = Set(siteOrder.map { $0.place ?? $0.function })

        let title: String
        let fullTitle: String
        let note: String?
        if group.mergedTypes > 0 {
            title = "\(ReportNaming.count(count, "object")) of \(ReportNaming.count(group.mergedTypes, "more type"))"
            fullTitle = title
            note = nil
        } else {
            let name = index.displayName[group.type] ?? group.type
            title = count == 1 ? Self.shortened(name) : "\(Self.shortened(name)) × \(ReportNaming.grouped(count))"
            fullTitle = count == 1 ? group.type : "\(group.type) × \(ReportNaming.grouped(count))"
            if role == .member {
                note = ring ? "ring" : "cycle"
            } else {
                note = group.isCyclic ? "cycle" : nil
            }
        }
        var detail = ReportNaming.count(group.bytes, "byte")
        if places.count == 1, let place = places.first {
            detail += " · " + place
        } else if places.count > 1 {
            detail += " · " + ReportNaming.count(places.count, "creation site")
        }
        var label = "<B>\(DOTText.htmlEscaped(title))</B>"
        if let note {
            // A no-break space: SVG drops a leading ordinary space of a text run.
            label += "\u{A0}(\(note))"
        }
        label += "<BR/><FONT POINT-SIZE=\"9\" COLOR=\"\(GraphStyle.detailColor)\">\(DOTText.htmlEscaped(detail))</FONT>"

        var tooltip = [fullTitle, ReportNaming.count(group.bytes, "byte")]
        let topSites = siteOrder.sorted { siteCounts[$0, default: 0] > siteCounts[$1, default: 0] }.prefix(3)
        for site in topSites {
            tooltip.append("created at \(site.text) (\(ReportNaming.grouped(siteCounts[site, default: 0])))")
        }
        if siteOrder.count > topSites.count {
            tooltip.append("… and \(ReportNaming.count(siteOrder.count - topSites.count, "more creation site"))")
        }
        var roleText = Self.roleText(role, cycle: cycle)
        if role == .member {
            roleText += ring ? ", a ring" : ""
        } else if group.isCyclic {
            roleText += ", in a cycle of their own"
        }
        tooltip.append(roleText)
        let name = group.mergedTypes > 0 ? "other objects" : index.displayName[group.type] ?? group.type
        return Node(
            id: id, label: label, tooltip: tooltip.joined(separator: "\n"), role: role, cycle: cycle, isGroup: true,
            cluster: cluster, name: name
        )
    }

    /// For each of `positions`: the number of the held cycle it belongs to (the report's
    /// ``LeakGraphReport/LeakReport/Cycle/heldCycles``), else -1.
    private func cyclicComponents(of positions: [Int]) -> [Int] {
        positions.map { index.heldCycle[$0] }
    }

    /// Whether every member has exactly one strong reference to a member and one from a member.
    private func isSimpleRing(_ members: [Int]) -> Bool {
        guard !members.isEmpty else { return false }
        let references = index.report.references
        // -1: not a member; else the number of strong references from members seen so far.
        var inDegree = [Int](repeating: -1, count: index.report.leaks.count)
        for position in members { inDegree[position] = 0 }
        for position in members {
            var outDegree = 0
            for reference in index.outgoing[position] where references[reference].ownership == .strong {
                guard let target = index.position[references[reference].to], inDegree[target] >= 0 else {
                    continue
                }
                outDegree += 1
                inDegree[target] += 1
            }
            if outDegree != 1 { return false }
        }
        return members.allSatisfy { inDegree[$0] == 1 }
    }

    // MARK: Edges

    /// The references between shown objects, as edges: one per reference between single objects, and one
    /// per pair of nodes and kind (with counted labels) where a group is involved. Each cycle's suspect
    /// reference (given by its index in `report.references`) is always its own edge.
    ///
    /// - Complexity: O(*e*) for the references leaving shown objects.
    func edges(suspects: [Int: LeakReport.Suspect]) -> [Edge] {
        let report = index.report
        struct PairKey: Hashable {
            var from: Int
            var to: Int
            var kind: EdgeKind
        }
        var edges: [Edge] = []
        var collapsed: [PairKey: (edge: Int, labels: [String], counts: [String: Int])] = [:]

        for position in report.leaks.indices where nodeOfLeak[position] >= 0 {
            let from = nodeOfLeak[position]
            for referenceIndex in index.outgoing[position] {
                let reference = report.references[referenceIndex]
                guard let target = index.position[reference.to], nodeOfLeak[target] >= 0 else { continue }
                let to = nodeOfLeak[target]
                let kind: EdgeKind
                if suspects[referenceIndex] != nil {
                    kind = .suspect
                } else if reference.ownership != .strong {
                    kind = .notStrong
                } else if nodes[from].role == .member, nodes[to].role == .member, nodes[from].cycle == nodes[to].cycle {
                    kind = .cycle
                } else {
                    kind = .strong
                }
                let ownership = reference.ownership == .strong ? "" : " (\(reference.ownership.rawValue))"
                let grouped = nodes[from].isGroup || nodes[to].isGroup
                if let suspect = suspects[referenceIndex] {
                    edges.append(
                        Edge(
                            from: from, to: to, label: "⚠ suspect: \(reference.label)\(ownership)",
                            tooltip: "⚠ Suspect: \(nodes[from].name).\(reference.label) → \(nodes[to].name)\n"
                                + "\(CodeSpans.plain(suspect.reason))\nFix: \(CodeSpans.plain(suspect.hint))"
                                + Self.storeSiteTooltip(reference),
                            kind: kind
                        )
                    )
                } else if !grouped {
                    edges.append(
                        Edge(
                            from: from, to: to, label: reference.label + ownership,
                            tooltip: "\(nodes[from].name).\(reference.label) → \(nodes[to].name) "
                                + "(\(reference.ownership.rawValue))" + Self.storeSiteTooltip(reference),
                            kind: kind
                        )
                    )
                } else {
                    let key = PairKey(from: from, to: to, kind: kind)
                    let label = reference.path.text(subscripts: .placeholder("i")) + ownership
                    if collapsed[key] == nil {
                        collapsed[key] = (edges.count, [], [:])
                        edges.append(Edge(from: from, to: to, label: "", tooltip: "", kind: kind))
                    }
                    if collapsed[key]!.counts[label] == nil {
                        collapsed[key]!.labels.append(label)
                    }
                    collapsed[key]!.counts[label, default: 0] += 1
                }
            }
        }
        for (key, entry) in collapsed {
            let counted = entry.labels.map { label in
                let count = entry.counts[label, default: 0]
                return count == 1 ? label : "\(label) ×\(ReportNaming.grouped(count))"
            }
            var shown = Array(counted.prefix(Self.labelsPerCollapsedEdge))
            if counted.count > shown.count {
                shown.append("+\(counted.count - shown.count) more")
            }
            edges[entry.edge].label = shown.joined(separator: "\n")
            edges[entry.edge].tooltip =
                "\(nodes[key.from].name) → \(nodes[key.to].name)\n"
                + counted.joined(separator: "\n")
        }
        return edges
    }

    // MARK: Text

    /// `member of root cycle #1`, `held by root cycle #2`, `leaked outside every root cycle`.
    static func roleText(_ role: Role, cycle: Int?) -> String {
        let cycleText = cycle.map { "root cycle #\($0 + 1)" } ?? "a root cycle"
        switch role {
        case .member: return "member of \(cycleText)"
        case .held: return "held by \(cycleText)"
        case .unlisted: return "leaked outside every root cycle"
        case .note: return ""
        }
    }

    /// `name` cut to ``labelNameLimit`` characters with `…`.
    static func shortened(_ name: String) -> String {
        name.count <= labelNameLimit ? name : String(name.prefix(labelNameLimit - 1)) + "…"
    }
}
