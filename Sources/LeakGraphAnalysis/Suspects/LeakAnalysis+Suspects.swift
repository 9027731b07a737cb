import LeakGraphModel

extension LeakAnalysis {
    /// Picks one suspect reference per root cycle, by the rules of ``SuspectReference/Rule`` in order.
    ///
    /// Only strong references between two members of the same cycle are considered, so a weak, unowned or
    /// unmanaged reference is never the suspect, nor is a reference to a held object. The choice depends
    /// on reference paths, node kinds, creation stack ids and node indices only, never on addresses
    /// directly or on hashing, so the same graph always gives the same suspects.
    ///
    /// - Returns: One entry per root cycle, `result[i]` for ``rootCycles``[i]; `nil` only for a cycle
    ///   with no internal strong reference, which ``analyze(_:)`` never produces.
    /// - Complexity: O(*n* + *e*) expected (each distinct property name is split into words once).
    public func suspectReferences(context: SuspectContext = SuspectContext()) -> [SuspectReference?] {
        let cycleEdges = CycleEdges(analysis: self)
        var finder = SuspectFinder(graph: graph, context: context)
        return rootCycles.map { cycle in
            finder.suspect(of: cycle, edges: cycleEdges.edges[cycle.id])
        }
    }
}

extension LeakAnalysis {
    /// Per root cycle, every reference that must be cut (made weak, or cleared) for its members to be
    /// freed: the suspect first (``suspectReferences()``), then, while the cycle's other strong
    /// references still form a cycle — two loops through one object, a delegate and a closure both
    /// holding the owner, two properties holding the same object — the suspect of each cycle left,
    /// by the same rules, until none is left or `limit` references are named.
    ///
    /// - Returns: One list per root cycle, `result[i]` for ``rootCycles``[i]; its first element is
    ///   `suspectReferences()[i]`.
    /// - Complexity: O(*k* (*n* + *e*)) for *k* cuts per cycle (one strongly connected components pass
    ///   over the cycle's members per cut).
    public func cutReferences(limit: Int = 16, context: SuspectContext = SuspectContext()) -> [[SuspectReference]] {
        let cycleEdges = CycleEdges(analysis: self)
        var finder = SuspectFinder(graph: graph, context: context)
        return rootCycles.map { cycle in
            var cuts: [SuspectReference] = []
            var pending: [(members: [Int], edges: [Int])] = [(cycle.members, cycleEdges.edges[cycle.id])]
            while cuts.count < max(1, limit), let part = pending.popLast() {
                let scope = RootCycle(id: cycle.id, members: part.members, holds: [])
                guard let cut = finder.suspect(of: scope, edges: part.edges) else { continue }
                cuts.append(cut)
                let rest = part.edges.filter { $0 != cut.reference }
                pending.append(contentsOf: cyclicParts(of: part.members, edges: rest).reversed())
            }
            return cuts
        }
    }

    /// The strongly connected parts of `members` over `edges` (reference indices) that still contain a
    /// cycle: two or more members, or one member with a reference to itself; each with its own edges.
    private func cyclicParts(of members: [Int], edges: [Int]) -> [(members: [Int], edges: [Int])] {
        var local: [Int: Int] = [:]
        for (position, member) in members.enumerated() {
            local[member] = position
        }
        var successors = [[Int]](repeating: [], count: members.count)
        for index in edges {
            let reference = graph.references[index]
            if let from = local[reference.from], let to = local[reference.to] {
                successors[from].append(to)
            }
        }
        let components = StronglyConnectedComponents.compute(StrongAdjacency(successors: successors))
        var partMembers = [[Int]](repeating: [], count: components.count)
        for (position, member) in members.enumerated() {
            partMembers[components.component[position]].append(member)
        }
        var partEdges = [[Int]](repeating: [], count: components.count)
        for index in edges {
            let reference = graph.references[index]
            if let from = local[reference.from], let to = local[reference.to],
                components.component[from] == components.component[to]
            {
                partEdges[components.component[from]].append(index)
            }
        }
        return (0..<components.count).compactMap { part in
            partMembers[part].count > 1 || !partEdges[part].isEmpty ? (partMembers[part], partEdges[part]) : nil
        }
    }
}

/// Applies the suspect rules to the internal strong references of one cycle at a time.
private struct SuspectFinder {
    let graph: ObjectGraph
    /// What the rules know beyond the graph: whose code a type is, where closures were formed.
    let context: SuspectContext
    /// Property name → its back-reference rank (names repeat: a ring of 100,000 `next`s).
    var rankCache: [String: Int?] = [:]

    init(graph: ObjectGraph, context: SuspectContext) {
        self.graph = graph
        self.context = context
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
            ?? streamKeptForTask(cycle, edges)
            ?? referenceToContainer(cycle, edges, pairs)
            ?? selfReference(cycle, edges)
            ?? closingReference(cycle, edges)
    }

    /// Rule 1: a property named like a back-reference.
    private mutating func backReferenceName(_ cycle: RootCycle, _ edges: [Int]) -> SuspectReference? {
        var best: Candidate?
        for index in edges {
            let reference = graph.references[index]
            guard !reference.path.isClosure, !isSynthetic(reference.from) else { continue }
            if let rank = rank(reference.path.propertyName) {
                consider(&best, Candidate(key: [rank, reference.from, index], reference: index))
            }
        }
        guard let best else { return nil }
        let path = graph.references[best.reference].path
        let name = path.propertyName
        return make(
            cycle, best.reference, .backReferenceName,
            reason: "`\(name)` is named like a back-reference, yet it holds its target strongly",
            hint: declarationHint(best.reference) ?? Self.weakHint(path, name: name)
        )
    }

    /// Rule 2: a closure that leads back to the object holding it (`pairs`: the cycle's edges as pairs).
    private mutating func closureCapturingHolder(_ cycle: RootCycle, _ edges: [Int], _ pairs: Set<Pair>)
        -> SuspectReference?
    {
        var best: Candidate?
        for index in edges where graph.references[index].path.isClosure {
            let reference = graph.references[index]
            let grade = reference.from == reference.to ? 0 : pairs.contains(Pair(reference.to, reference.from)) ? 1 : 2
            consider(&best, Candidate(key: [grade, reference.from, index], reference: index))
        }
        guard let best else { return nil }
        let reference = graph.references[best.reference]
        let name = isSynthetic(reference.from) ? "" : reference.path.propertyName
        let closure = name.isEmpty ? "a closure" : "the closure stored in `\(name)`"
        let reason =
            switch best.key[0] {
            case 0:
                "\(closure) captures the object that holds it (its only capture, so its context is the object itself)"
            case 1: "\(closure) captures the object that holds it"
            default: "\(closure) leads back, through what it captures, to the object that holds it"
            }
        return make(
            cycle, best.reference, .closureCapturingHolder, reason: reason,
            hint: closureHint(best.reference, edges: edges))
    }

    /// After rule 2: the Continuation of the stream a waiting task awaits, kept only inside the cycle.
    private mutating func streamKeptForTask(_ cycle: RootCycle, _ edges: [Int]) -> SuspectReference? {
        guard let index = edges.first(where: { graph.references[$0].path.isTaskResumption }) else { return nil }
        if graph.nodes[graph.references[index].from].typeName == "Swift.CheckedContinuationCanary" {
            // The task awaits a checked continuation whose every copy is kept inside the cycle.
            return make(
                cycle, index, .streamKeptForTask,
                reason: "the task waits on a CheckedContinuation that only the cycle keeps, so nothing outside it can "
                    + "ever resume the task",
                hint: "resume the continuation (`continuation.resume(…)`) when its owner goes away, on every path")
        }
        return make(
            cycle, index, .streamKeptForTask,
            reason: "the only Continuation of the stream this task waits on is kept inside the cycle, so nothing "
                + "outside it can ever resume the task",
            hint: "finish the stream (`continuation.finish()`) when you are done with it, or cancel the task")
    }

    /// Rule 3: a reference back to the object that keeps the source in a collection.
    private mutating func referenceToContainer(_ cycle: RootCycle, _ edges: [Int], _ pairs: Set<Pair>)
        -> SuspectReference?
    {
        let references = graph.references
        var storagesOf: [Int: [(storage: Int, path: ReferencePath)]] = [:]
        for index in edges {
            let reference = references[index]
            if Self.isCollection(graph.nodes[reference.to].kind), reference.from != reference.to {
                storagesOf[reference.from, default: []].append((reference.to, reference.path))
            }
        }
        guard !storagesOf.isEmpty else { return nil }
        var best: Candidate?
        for index in edges {
            let reference = references[index]
            guard reference.from != reference.to, !isSynthetic(reference.from), let storages = storagesOf[reference.to]
            else { continue }
            if let holding = storages.first(where: { pairs.contains(Pair($0.storage, reference.from)) }) {
                consider(
                    &best, Candidate(key: [reference.from, index], reference: index, note: holding.path.propertyName))
            }
        }
        guard let best else { return nil }
        let path = references[best.reference].path
        let name = path.propertyName
        let collection = best.note
        let place = collection.isEmpty ? "in a collection" : "in `\(collection)`"
        return make(
            cycle, best.reference, .referenceToContainer,
            reason: "it points back to the object that keeps this one \(place)",
            hint: declarationHint(best.reference)
                ?? (name.isEmpty ? "make this back-reference weak" : Self.weakHint(path, name: name))
        )
    }

    /// Rule 4: an object referencing itself (the first such reference).
    private mutating func selfReference(_ cycle: RootCycle, _ edges: [Int]) -> SuspectReference? {
        guard let index = edges.first(where: { graph.references[$0].from == graph.references[$0].to }) else {
            return nil
        }
        let path = graph.references[index].path
        if path.isTaskSuspendedForever {
            return make(
                cycle, index, .selfReference,
                reason: "the task waits on an AsyncStream that nothing can yield to or finish any more, and holds "
                    + "itself until it completes",
                hint: "finish the stream (`continuation.finish()`) or cancel the task when its owner goes away")
        }
        let name = isSynthetic(graph.references[index].from) ? "" : path.propertyName
        let weak = path.weakCandidate == name ? ", or make it `weak var \(name)`" : ""
        return make(
            cycle, index, .selfReference, reason: "the object references itself",
            hint: declarationHint(index)
                ?? (name.isEmpty
                    ? "break the self-reference" : "break the self-reference: set `\(name)` to nil when done\(weak)")
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
        let path = references[index].path
        let name = isSynthetic(references[index].from) ? "" : path.propertyName
        let closes =
            headStack != nil && !sharesFirstStack
            ? "it leads back to the object whose creation site ran first"
            : "it leads back to the cycle's first object in the heap walk's order"
        return make(
            cycle, index, .closingReference,
            reason: "no reference in the cycle is named like a back-reference, is a closure or points back to a "
                + "container; this one closes the ring: \(closes)",
            hint: declarationHint(index)
                ?? (name.isEmpty
                    ? "break the cycle at one reference: make it weak, or clear it when the objects are done"
                    : path.weakCandidate == name
                        ? "break the ring here: make it `weak var \(name)`, or set `\(name)` to nil when the objects are done"
                        : "break the ring here: clear `\(name)` when the objects are done, or hold it weakly")
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
            cycle: cycle.id, reference: index, from: reference.from, to: reference.to, path: reference.path,
            rule: rule, reason: reason, hint: hint
        )
    }

    /// A name's back-reference rank (``BackReferenceNames/rank(_:)``), computed once per distinct name.
    private mutating func rank(_ name: String) -> Int? {
        if let known = rankCache[name] { return known }
        let rank = BackReferenceNames.rank(name)
        rankCache[name] = rank
        return rank
    }

    /// The fix when the reference at `index` is held by a stored property of a type the checked code
    /// does not declare (a library's or a dependency's, ``SuspectContext/isOwnType``): no `weak` can be
    /// written there, so the cycle must be cut where the code holds these objects. `nil` for the
    /// code's own types (and unknown ones).
    private func declarationHint(_ index: Int) -> String? {
        let reference = graph.references[index]
        let source = graph.nodes[reference.from]
        guard !isSynthetic(reference.from), context.isOwnType(source.typeName) == false else { return nil }
        let name = reference.path.propertyName
        let field = name.isEmpty ? "this reference" : "`\(name)`"
        return "\(field) is declared in \(Self.moduleName(of: source.typeName)), not in the code under test, so it "
            + "cannot be made weak there: break the cycle where your code keeps these objects — cancel or dispose "
            + "the subscription or task that holds them, drain the queue or scheduler, or release the holder"
    }

    /// `ReactiveSwift` for `ReactiveSwift.Signal<…>.Core`: the text before the first `.`, in backquotes.
    private static func moduleName(of typeName: String) -> String {
        let module = typeName.prefix { $0 != "." && $0 != "<" }
        return module.isEmpty || module.count == typeName.count ? "a library" : "`\(module)`"
    }

    /// The fix for a closure (the reference at `index`, whose path ends in a closure context) that leads
    /// back to its holder: `[weak self]` only where that compiles — the closure's context is an object
    /// the walk read, made in a method of the class whose object it captures (that object is `self`
    /// there). A closure formed elsewhere (a free function, a struct's method, another class's method)
    /// gets its capture of the object made weak in words; a closure whose only capture is the object
    /// itself (its context is that object, so where it was formed is not recorded) gets both, each with
    /// where it applies.
    private func closureHint(_ index: Int, edges: [Int]) -> String {
        let reference = graph.references[index]
        let holder = graph.nodes[reference.from]
        let name = isSynthetic(reference.from) ? "" : reference.path.propertyName
        let clear = name.isEmpty ? "" : ", or clear `\(name)` when done"
        let contextNode = reference.to
        guard graph.nodes[contextNode].kind == .closureContext else {
            // The context is the captured object itself.
            let captured = Self.shortTypeName(graph.nodes[contextNode].typeName)
            return "capture the \(captured) weakly: `{ [weak self] in … }` in a method of \(captured), a `weak` "
                + "capture-list entry elsewhere\(clear)"
        }
        // The class objects the context captures (directly, or inside a captured struct), in the cycle.
        let captured = edges.map { graph.references[$0] }.filter { edge in
            edge.from == contextNode
                && edge.path.steps.first.map { if case .capture = $0 { true } else { false } } == true
                && graph.nodes[edge.to].kind == .class
        }.map { graph.nodes[$0.to].typeName }
        guard let function = context.formingFunction(contextNode) else {
            let type = captured.first.map(Self.shortTypeName) ?? Self.shortTypeName(holder.typeName)
            return "capture the \(type) weakly: `{ [weak self] in … }` in a method of \(type), a `weak` capture-list "
                + "entry elsewhere\(clear)"
        }
        if captured.contains(where: { SuspectContext.isMethod(function, of: $0) }) {
            return "capture self weakly: `{ [weak self] in … }`"
        }
        let type = captured.first.map(Self.shortTypeName) ?? Self.shortTypeName(holder.typeName)
        return "make the closure's capture of the \(type) weak (a `weak` entry for it in the closure's capture list; "
            + "`self` where it is formed, in \(Self.shortFunctionName(function)), is not the \(type))\(clear)"
    }

    /// `Editor` for `App.Editor` (in backquotes).
    private static func shortTypeName(_ typeName: String) -> String {
        let dot = typeName.firstIndex(of: ".")
        let rest = dot.map { String(typeName[typeName.index(after: $0)...]) } ?? typeName
        let module = dot.map { typeName[..<$0] } ?? ""
        let plain = !module.isEmpty && module.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        return "`\(plain ? rest : typeName)`"
    }

    /// `wire(editor:)` for `App.wire(editor: App.Editor) -> ()` (in backquotes): the name and labels.
    private static func shortFunctionName(_ function: String) -> String {
        var proper = Substring(function)
        while let range = proper.firstRange(of: " in ") {
            proper = proper[range.upperBound...]
        }
        let head = proper.prefix { $0 != "(" }
        let name = head.split(separator: ".").last.map(String.init) ?? String(head)
        var labels = ""
        if let open = proper.firstIndex(of: "(") {
            var depth = 0
            var current = ""
            var atStart = true
            for character in proper[proper.index(after: open)...] {
                if character == "(" || character == "<" || character == "[" { depth += 1 }
                if character == ")" || character == ">" || character == "]" {
                    if depth == 0 { break }
                    depth -= 1
                }
                if depth == 0 && character == ":" && atStart {
                    labels += current.trimmingCharacters() + ":"; atStart = false; current = ""; continue
                }
                if depth == 0 && character == "," { atStart = true; current = ""; continue }
                if atStart { current.append(character) }
            }
        }
        return "`\(name)(\(labels))`"
    }

    /// The fix for a back-reference at `path` named `name`: `make it weak var name` when that declaration
    /// is what holds the reference (``ReferencePath/weakCandidate``), else advice that compiles.
    static func weakHint(_ path: ReferencePath, name: String) -> String {
        if path.weakCandidate == name { return "make it `weak var \(name)`" }
        if path.isInsideStorage {
            return "keep weak references in `\(name)` (e.g. elements wrapping a `weak var`), or remove them when done"
        }
        return "hold the reference weakly: `\(name)` cannot be `weak` where it is (\(path.text)); "
            + "store it in a `weak var`, or clear it when done"
    }

    /// Whether references from `node` are slots of runtime storage (array elements, dictionary buckets,
    /// closure captures, box values) rather than stored properties the user named.
    private func isSynthetic(_ node: Int) -> Bool {
        switch graph.nodes[node].kind {
        case .class, .other, .task: false
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

extension String {
    /// The string without leading and trailing spaces.
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
