import LeakGraphModel

extension LeakAnalysis {
    /// The store site of every strong reference into a leaked object that has a retain history
    /// (``LeakGraphModel/ObjectGraph/retainHistories``), by index in ``LeakGraphModel/ObjectGraph/references``.
    ///
    /// Per object: its balanced retain/release pairs are cancelled (``RetainBalancer``); the +1s left are
    /// what its strong references hold, one each. With one reference, it gets the one left; with several,
    /// the verdict is ``StoreSite/Verdict/known`` only when every +1 left names the same site. A history that does not add up to the object's retain count (retains made where the
    /// recorder does not look) gives ``StoreSite/Verdict/notKnown`` for every reference into it.
    ///
    /// A reference that is a stored property of a holder with a history first gets the last write into its
    /// word (``StoreSite/Evidence/write``): the store itself, read from the exclusivity check before it.
    ///
    /// - Parameters:
    ///   - fieldOffsets: per reference index, the byte offset in its holder of the word that holds it
    ///     (read from memory by the check); references without one are attributed from retains only.
    ///   - pairsByEqualStacks: balance by equal stacks instead of by ownership (Mozilla's rule), to
    ///     measure the two side by side (`LEAKGRAPH_HISTORY_BALANCER=stacks`); never the default.
    ///   - frames: the symbolized frames of a recorded stack, innermost first, inlined calls expanded.
    /// - Complexity: O(*e*²) per object for *e* events in its history.
    public func storeSites(
        fieldOffsets: [Int: Int] = [:], pairsByEqualStacks: Bool = false, frames: (UInt32) -> [HistoryFrame]
    ) -> [Int: StoreSite] {
        var sites: [Int: StoreSite] = [:]
        guard !graph.retainHistories.isEmpty else { return sites }
        var inEdges: [Int: [Int]] = [:]
        for (index, reference) in graph.references.enumerated()
        where reference.ownership == .strong && graph.retainHistories[reference.to] != nil {
            inEdges[reference.to, default: []].append(index)
        }
        var cache: [UInt32: [HistoryFrame]] = [:]
        let cachedFrames = { (id: UInt32) -> [HistoryFrame] in
            if let known = cache[id] { return known }
            let resolved = frames(id)
            cache[id] = resolved
            return resolved
        }
        for (node, edges) in inEdges {
            guard let history = graph.retainHistories[node] else { continue }
            var unresolved: [Int] = []
            for edge in edges {
                if let written = writeSite(of: edge, offset: fieldOffsets[edge], frames: cachedFrames) {
                    sites[edge] = written
                } else {
                    unresolved.append(edge)
                }
            }
            guard !unresolved.isEmpty else { continue }
            let attributed = attribute(
                node: node, history: history, edges: edges, pairing: pairsByEqualStacks ? .equalStacks : .ownership,
                frames: cachedFrames)
            for edge in unresolved { sites[edge] = attributed[edge] }
        }
        return sites
    }

    /// The store site of `edge` from its holder's writes: the last write into the word that holds the
    /// reference (`offset` bytes into the holder), when the holder has a history from its allocation and the
    /// reference is a stored property of the holder itself (not a field of a struct in it, an element, a
    /// capture). The site is the first frame of the program's own code that is not an accessor.
    private func writeSite(of edge: Int, offset: Int?, frames: (UInt32) -> [HistoryFrame]) -> StoreSite? {
        let reference = graph.references[edge]
        guard let offset, Self.isStoredProperty(reference.path),
            let history = graph.retainHistories[reference.from], history.complete
        else { return nil }
        let address = graph.nodes[reference.from].address + UInt64(offset)
        // A closure property is two words, its function then its context: the write is to its first.
        let written: Set<UInt64> = reference.path.isClosure ? [address, address - 8] : [address]
        guard let write = history.events.last(where: { $0.kind == .write && written.contains($0.address) }),
            let stack = write.stackID
        else { return nil }
        let stackFrames = frames(stack)
        guard let frame = stackFrames.first(where: { $0.isUserCode && !$0.isAccessorOrThunk }) else { return nil }
        return .known(StoreSite.Candidate(stackID: stack, frame: frame, evidence: .write, sequence: write.sequence))
    }

    /// Whether `path` is a stored property of its object, perhaps through an `Optional`, an existential or
    /// a closure's context — the word a modify access of that property writes.
    public static func isStoredProperty(_ path: ReferencePath) -> Bool {
        guard case .property = path.steps.first else { return false }
        return path.steps.dropFirst().allSatisfy { step in
            switch step {
            case .optionalPayload, .existentialValue, .closureContext, .storage: true
            default: false
            }
        }
    }

    private func attribute(
        node: Int, history: RetainHistory, edges: [Int], pairing: RetainBalancer.Pairing,
        frames: (UInt32) -> [HistoryFrame]
    ) -> [Int: StoreSite] {
        let object = graph.nodes[node]
        let balancer = RetainBalancer(typeName: object.typeName, pairing: pairing)
        let (plus, minus) = balancer.units(of: history, frames: frames)
        let candidates = plus.map(Self.candidate)
        var result: [Int: StoreSite] = [:]
        guard history.complete else {
            let reason =
                "its history does not start at its allocation (it was made before recording began, or events were lost)"
            for edge in edges { result[edge] = .notKnown(reason, candidates: Self.few(candidates)) }
            return result
        }
        guard history.netCount == object.retainCount else {
            let reason =
                "its recorded retains and releases add up to \(history.netCount), its retain count is \(object.retainCount): some were made where LeakGraph does not see them"
            for edge in edges { result[edge] = .notKnown(reason, candidates: Self.few(candidates)) }
            return result
        }
        let outcome = balancer.balance(plus: plus, minus: minus)
        guard outcome.survivors.count == edges.count else {
            let reason = "\(outcome.survivors.count) retains are left for \(edges.count) references"
            let left = outcome.survivors.map(Self.candidate)
            for edge in edges { result[edge] = .notKnown(reason, candidates: Self.few(left)) }
            return result
        }
        // Each survivor with the sites it could be confused with.
        let survivors = outcome.survivors.map(Self.candidate)
        let doubtful = outcome.alternatives.enumerated().map { position, others in
            others.map(Self.candidate).filter { !Self.sameSite($0, survivors[position]) }
        }
        // Which survivors each reference can hold: any (a +1 handed to the holder's initializer is made
        // before the holder exists).
        let options: [[Int]] = edges.map { _ in Array(survivors.indices) }
        for (position, edge) in edges.enumerated() {
            let choices = options[position]
            guard !choices.isEmpty else {
                result[edge] = .notKnown("no retain left was made after its holder", candidates: Self.few(survivors))
                continue
            }
            // One site among every survivor this reference can hold (a reference whose survivors share one
            // site needs no matching).
            let first = survivors[choices[0]]
            let unique = choices.allSatisfy { Self.sameSite(survivors[$0], first) }
            let otherReferencesFit = edges.count == 1 || unique
            if unique, otherReferencesFit, first.frame != nil, choices.allSatisfy({ doubtful[$0].isEmpty }) {
                result[edge] = .known(first)
            } else if !unique {
                result[edge] = .notKnown(
                    "\(edges.count) references into it and \(choices.count) retains left that could be its",
                    candidates: Self.few(choices.map { survivors[$0] }))
            } else if first.frame == nil {
                result[edge] = .notKnown("the retain's stack ends before the code that made it", candidates: [first])
            } else {
                let others = choices.flatMap { doubtful[$0] }
                result[edge] = .notKnown(
                    "a release could have balanced either of \(1 + Set(others.map(Self.siteKey)).count) retains",
                    candidates: Self.few([first] + others))
            }
        }
        return result
    }

    private static func candidate(_ unit: RetainBalancer.Unit) -> StoreSite.Candidate {
        StoreSite.Candidate(
            stackID: unit.event.stackID, frame: unit.owner.map { unit.frames[$0] },
            caller: unit.owner.flatMap { $0 + 1 < unit.frames.count ? unit.frames[$0 + 1] : nil },
            evidence: unit.event.kind == .allocation ? .allocation : .retain, sequence: unit.event.sequence)
    }

    /// The site a candidate names (function, file, line), for comparing candidates.
    private static func siteKey(_ candidate: StoreSite.Candidate) -> String {
        guard let frame = candidate.frame else { return "stack \(candidate.stackID.map(String.init) ?? "-")" }
        let caller = candidate.caller.map { "\($0.function)|\($0.line.map(String.init) ?? "")" } ?? ""
        return
            "\(frame.function)|\(frame.file ?? "")|\(frame.line.map(String.init) ?? "")|\(candidate.evidence)|\(caller)"
    }

    private static func sameSite(_ a: StoreSite.Candidate, _ b: StoreSite.Candidate) -> Bool {
        siteKey(a) == siteKey(b)
    }

    /// At most 5 candidates, one per site, oldest first.
    private static func few(_ candidates: [StoreSite.Candidate]) -> [StoreSite.Candidate] {
        var seen: Set<String> = []
        var kept: [StoreSite.Candidate] = []
        for candidate in candidates.sorted(by: { $0.sequence < $1.sequence })
        where seen.insert(siteKey(candidate)).inserted {
            kept.append(candidate)
            if kept.count == 5 { break }
        }
        return kept
    }
}
