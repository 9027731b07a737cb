import LeakGraphModel

extension LeakAnalysis {
    /// Picks one suspect reference per root cycle, by the rules of ``SuspectReference/Rule`` in order.
    ///
    /// Only strong references between two members of the same cycle are considered, so a weak, unowned or
    /// unmanaged reference is never the suspect, nor is a reference to a held object. The choice depends
    /// on labels, node kinds, creation stack ids and node indices only, never on addresses directly or on
    /// hashing, so the same graph always gives the same suspects.
    ///
    /// - Parameter graph: The graph this analysis was computed from.
    /// - Returns: One entry per root cycle, `result[i]` for ``rootCycles``[i]; `nil` only for a cycle
    ///   with no internal strong reference, which an analysis of `graph` never produces.
    /// - Precondition: The analysis was computed from `graph`.
    /// - Complexity: O(*n* + *e*) expected (each distinct label is parsed once).
    public func suspectReferences(in graph: ObjectGraph) -> [SuspectReference?] {
        precondition(nodeCount == graph.nodes.count, "the analysis was computed from another graph")
        let cycleEdges = CycleEdges(graph: graph, analysis: self)
        var finder = SuspectFinder(graph: graph)
        return rootCycles.map { cycle in
            finder.suspect(of: cycle, edges: cycleEdges.edges[cycle.id])
        }
    }
}

/// Applies the suspect rules to the internal strong references of one cycle at a time.
private struct SuspectFinder {
    let graph: ObjectGraph
    /// Label → its property name and back-reference rank (labels repeat: a ring of 100,000 `next`s).
    var labelCache: [String: (name: String, rank: Int?)] = [:]

    init(graph: ObjectGraph) {
        self.graph = graph
    }

    /// An ordered candidate: lower keys win, compared element by element.
    private struct Candidate {
        var key: [Int]
        var reference: Int
        var note: String = ""
    }

    /// The suspect of `cycle`, whose internal strong references are `edges` (indices into the graph's
    /// references): the first rule that matches decides.
    mutating func suspect(of cycle: RootCycle, edges: [Int]) -> SuspectReference? {
        guard !edges.isEmpty else { return nil }
        var pairs: Set<Pair> = []
        pairs.reserveCapacity(edges.count)
        for index in edges {
            pairs.insert(Pair(graph.references[index].from, graph.references[index].to))
        }
        return backReferenceName(cycle, edges)
            ?? closureCapturingHolder(cycle, edges, pairs)
            ?? referenceToContainer(cycle, edges, pairs)
            ?? selfReference(cycle, edges)
            ?? closingReference(cycle, edges)
    }

    /// Rule 1: a property named like a back-reference.
    private mutating func backReferenceName(_ cycle: RootCycle, _ edges: [Int]) -> SuspectReference? {
        var best: Candidate?
        for index in edges {
            let reference = graph.references[index]
            guard !ReferenceLabel.isClosure(reference.label), !isSynthetic(reference.from) else { continue }
            if let rank = label(reference.label).rank {
                consider(&best, Candidate(key: [rank, reference.from, index], reference: index))
            }
        }
        guard let best else { return nil }
        let name = label(graph.references[best.reference].label).name
        return make(
            cycle, best.reference, .backReferenceName,
            reason: "`\(name)` is named like a back-reference, yet it holds its target strongly",
            hint: "make it `weak var \(name)`"
        )
    }

    /// Rule 2: a closure that leads back to the object holding it (`pairs`: the cycle's edges as pairs).
    private mutating func closureCapturingHolder(_ cycle: RootCycle, _ edges: [Int], _ pairs: Set<Pair>) -> SuspectReference? {
        var best: Candidate?
        for index in edges where ReferenceLabel.isClosure(graph.references[index].label) {
            let reference = graph.references[index]
            let grade = reference.from == reference.to ? 0 : pairs.contains(Pair(reference.to, reference.from)) ? 1 : 2
            consider(&best, Candidate(key: [grade, reference.from, index], reference: index))
        }
        guard let best else { return nil }
        let reference = graph.references[best.reference]
        let name = isSynthetic(reference.from) ? "" : label(reference.label).name
        let closure = name.isEmpty ? "a closure" : "the closure stored in `\(name)`"
        let reason =
            switch best.key[0] {
            case 0: "\(closure) captures the object that holds it (its only capture, so its context is the object itself)"
            case 1: "\(closure) captures the object that holds it"
            default: "\(closure) leads back, through what it captures, to the object that holds it"
            }
        return make(cycle, best.reference, .closureCapturingHolder, reason: reason, hint: "capture self weakly: `{ [weak self] in … }`")
    }

    /// Rule 3: a reference back to the object that keeps the source in a collection.
    private mutating func referenceToContainer(_ cycle: RootCycle, _ edges: [Int], _ pairs: Set<Pair>) -> SuspectReference? {
        let references = graph.references
        var storagesOf: [Int: [(storage: Int, label: String)]] = [:]
        for index in edges {
            let reference = references[index]
            if Self.isCollection(graph.nodes[reference.to].kind), reference.from != reference.to {
                storagesOf[reference.from, default: []].append((reference.to, reference.label))
            }
        }
        guard !storagesOf.isEmpty else { return nil }
        var best: Candidate?
        for index in edges {
            let reference = references[index]
            guard reference.from != reference.to, !isSynthetic(reference.from), let storages = storagesOf[reference.to]
            else { continue }
            if let holding = storages.first(where: { pairs.contains(Pair($0.storage, reference.from)) }) {
                consider(&best, Candidate(key: [reference.from, index], reference: index, note: holding.label))
            }
        }
        guard let best else { return nil }
        let name = label(references[best.reference].label).name
        let collection = label(best.note).name
        let place = collection.isEmpty ? "in a collection" : "in `\(collection)`"
        return make(
            cycle, best.reference, .referenceToContainer,
            reason: "it points back to the object that keeps this one \(place)",
            hint: name.isEmpty ? "make this back-reference weak" : "make it `weak var \(name)`"
        )
    }

    /// Rule 4: an object referencing itself (the first such reference).
    private mutating func selfReference(_ cycle: RootCycle, _ edges: [Int]) -> SuspectReference? {
        guard let index = edges.first(where: { graph.references[$0].from == graph.references[$0].to }) else {
            return nil
        }
        let name = isSynthetic(graph.references[index].from) ? "" : label(graph.references[index].label).name
        return make(
            cycle, index, .selfReference, reason: "the object references itself",
            hint: name.isEmpty
                ? "break the self-reference"
                : "break the self-reference: set `\(name)` to nil when done, or make it `weak var \(name)`"
        )
    }

    /// Rule 5: the reference that closes the ring, into the member created first (by creation stack id,
    /// then node index) from the member created last among those referencing it.
    private mutating func closingReference(_ cycle: RootCycle, _ edges: [Int]) -> SuspectReference {
        let references = graph.references
        var head = references[edges[0]].to
        for member in cycle.members where creationKey(member).lexicographicallyPrecedes(creationKey(head)) {
            head = member
        }
        let headStack = graph.nodes[head].stackID
        let sharesFirstStack = cycle.members.contains { $0 != head && graph.nodes[$0].stackID == headStack }
        var best: Candidate?
        for index in edges where references[index].to == head {
            let source = references[index].from
            consider(&best, Candidate(key: [-(graph.nodes[source].stackID ?? -1), -source, index], reference: index))
        }
        let index = best?.reference ?? edges[0]
        let name = isSynthetic(references[index].from) ? "" : label(references[index].label).name
        let closes =
            headStack != nil && !sharesFirstStack
            ? "it leads back to the object whose creation site ran first"
            : "it leads back to the cycle's first object in the heap walk's order"
        return make(
            cycle, index, .closingReference,
            reason: "no reference in the cycle is named like a back-reference, is a closure or points back to a "
                + "container; this one closes the ring: \(closes)",
            hint: name.isEmpty
                ? "break the cycle at one reference: make it weak, or clear it when the objects are done"
                : "break the ring here: make it `weak var \(name)`, or set `\(name)` to nil when the objects are done"
        )
    }

    /// How early `node` was created, as far as the graph tells: its creation stack id (stacks are numbered
    /// in the order the recorder first saw them; none counts as latest), then its node index.
    private func creationKey(_ node: Int) -> [Int] {
        [graph.nodes[node].stackID ?? Int.max, node]
    }

    // MARK: Helpers

    private func consider(_ best: inout Candidate?, _ candidate: Candidate) {
        if let current = best, !candidate.key.lexicographicallyPrecedes(current.key) { return }
        best = candidate
    }

    private func make(
        _ cycle: RootCycle, _ index: Int, _ rule: SuspectReference.Rule, reason: String, hint: String
    ) -> SuspectReference {
        let reference = graph.references[index]
        return SuspectReference(
            cycle: cycle.id, reference: index, from: reference.from, to: reference.to, label: reference.label,
            rule: rule, reason: reason, hint: hint
        )
    }

    /// The label's property name and back-reference rank, computed once per distinct label.
    private mutating func label(_ label: String) -> (name: String, rank: Int?) {
        if let known = labelCache[label] { return known }
        let name = ReferenceLabel.propertyName(label)
        let result = (name, ReferenceLabel.backReferenceRank(name))
        labelCache[label] = result
        return result
    }

    /// Whether references from `node` are slots of runtime storage (array elements, dictionary buckets,
    /// closure captures, box values) rather than stored properties the user named.
    private func isSynthetic(_ node: Int) -> Bool {
        switch graph.nodes[node].kind {
        case .class, .other: false
        case .closureContext, .box, .arrayStorage, .dictionaryStorage, .setStorage: true
        }
    }

    private static func isCollection(_ kind: ObjectKind) -> Bool {
        kind == .arrayStorage || kind == .dictionaryStorage || kind == .setStorage
    }

    /// An ordered pair of node indices.
    struct Pair: Hashable {
        var from: Int
        var to: Int
        init(_ from: Int, _ to: Int) {
            self.from = from
            self.to = to
        }
    }
}
