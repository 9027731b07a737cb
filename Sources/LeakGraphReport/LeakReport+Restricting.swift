extension LeakReport {
    /// The report of only the root cycles `keep` accepts — and of every other root cycle with a
    /// reference into a kept one, since the proof of a kept object counts the references into it.
    ///
    /// Leak ids, cycle ids and reference indices are renumbered densely in their old order; the
    /// summary's leaked objects, bytes and root cycles are recounted; tracked and live objects, the
    /// program and the diagnostics are kept. Each kept leak's proof still lists as many in-edges as
    /// its retain count.
    ///
    /// - Complexity: O(*n* + *e*) over the report's leaks and references, plus the calls to `keep`.
    public func keepingCycles(where keep: (Cycle) -> Bool) -> LeakReport {
        var kept = cycles.map(keep)
        guard kept.contains(false) else { return self }

        // Close over "has a reference into a kept cycle".
        let cycleOfLeak = leaks.map { $0.cycle }
        var sourcesInto = [[Int]](repeating: [], count: cycles.count)
        for reference in references
        where reference.ownership == .strong && leaks.indices.contains(reference.from)
            && leaks.indices.contains(reference.to)
        {
            if let from = cycleOfLeak[reference.from], let to = cycleOfLeak[reference.to], from != to,
                cycles.indices.contains(from), cycles.indices.contains(to)
            {
                sourcesInto[to].append(from)
            }
        }
        var work = kept.indices.filter { kept[$0] }
        while let cycle = work.popLast() {
            for source in sourcesInto[cycle] where !kept[source] {
                kept[source] = true
                work.append(source)
            }
        }

        var newCycleID = [Int?](repeating: nil, count: cycles.count)
        var nextCycle = 0
        for index in cycles.indices where kept[index] {
            newCycleID[index] = nextCycle
            nextCycle += 1
        }
        var newLeakID = [Int?](repeating: nil, count: leaks.count)
        var keptLeaks: [Leak] = []
        for leak in leaks {
            guard let cycle = leak.cycle, cycles.indices.contains(cycle), let newCycle = newCycleID[cycle] else {
                continue
            }
            var copy = leak
            newLeakID[leak.id] = keptLeaks.count
            copy.id = keptLeaks.count
            copy.cycle = newCycle
            keptLeaks.append(copy)
        }
        for index in keptLeaks.indices {
            if let inEdges = keptLeaks[index].proof?.inEdges {
                keptLeaks[index].proof?.inEdges = inEdges.compactMap { newLeakID[$0] }
            }
        }

        var newReferenceIndex = [Int?](repeating: nil, count: references.count)
        var keptReferences: [LeakReference] = []
        for (index, reference) in references.enumerated() {
            guard leaks.indices.contains(reference.from), leaks.indices.contains(reference.to),
                let from = newLeakID[reference.from], let to = newLeakID[reference.to]
            else { continue }
            newReferenceIndex[index] = keptReferences.count
            var kept = reference
            kept.from = from
            kept.to = to
            keptReferences.append(kept)
        }

        var keptCycles: [Cycle] = []
        for cycle in cycles where newCycleID[cycle.id] != nil {
            var copy = cycle
            copy.id = keptCycles.count
            copy.heldByKnownLibraryLeak = cycle.heldByKnownLibraryLeak.flatMap {
                cycles.indices.contains($0) ? newCycleID[$0] : nil
            }
            copy.members = cycle.members.compactMap { newLeakID[$0] }
            copy.holds = cycle.holds.compactMap { newLeakID[$0] }
            copy.heldCycles = cycle.heldCycles?.map { $0.compactMap { newLeakID[$0] } }
            let moved = { (suspect: Suspect) -> Suspect? in
                guard leaks.indices.contains(suspect.from), leaks.indices.contains(suspect.to),
                    let from = newLeakID[suspect.from], let to = newLeakID[suspect.to]
                else { return nil }
                var copy = suspect
                copy.from = from
                copy.to = to
                copy.reference = suspect.reference.flatMap {
                    references.indices.contains($0) ? newReferenceIndex[$0] : nil
                }
                return copy
            }
            copy.suspect = cycle.suspect.flatMap(moved)
            copy.otherCuts = cycle.otherCuts?.compactMap(moved)
            keptCycles.append(copy)
        }

        var restricted = self
        restricted.leaks = keptLeaks
        restricted.references = keptReferences
        restricted.cycles = keptCycles
        restricted.summary.leakedObjects = keptLeaks.count
        restricted.summary.leakedBytes = keptLeaks.reduce(0) { $0 + $1.size }
        restricted.summary.rootCycles = keptCycles.count
        return restricted
    }
}
