extension LeakReport {
    /// The root cycles of this report that `later` — a second check of the same process — confirms:
    /// every object of the cycle (its members and the objects it holds) is leaked in `later` too, at the
    /// same address, with the same retain count and the same references to the objects this report
    /// lists (the same paths to the same addresses). The rest are left out (``keepingCycles(where:)``).
    ///
    /// A leaked object cannot change: nothing can reach it to change it. A live object that a check
    /// read while another thread was updating it can look leaked once, but not twice the same way.
    /// References from a leaked object to an object that was live at this check and leaked by `later`
    /// (a cached value dropped meanwhile) are not compared: the reference was there all along, only
    /// its target's fate changed.
    ///
    /// - Complexity: O(*n* + *e*) over both reports' leaks and references.
    public func confirmed(by later: LeakReport) -> LeakReport {
        guard !cycles.isEmpty else { return self }
        let earlierReferences = outgoingReferences()
        let laterReferences = later.outgoingReferences(toAddresses: Set(leaks.map(\.address)))
        var laterLeaks: [String: (retainCount: Int, references: Set<String>)] = [:]
        for leak in later.leaks where laterReferences.indices.contains(leak.id) {
            laterLeaks[leak.address] = (leak.retainCount, laterReferences[leak.id])
        }
        return keepingCycles { cycle in
            (cycle.members + cycle.holds).allSatisfy { id in
                guard leaks.indices.contains(id), let seen = laterLeaks[leaks[id].address] else { return false }
                return seen.retainCount == leaks[id].retainCount && seen.references == earlierReferences[id]
            }
        }
    }

    /// Per leak position: its references to leaked objects (only to those at `addresses` when given),
    /// each as `ownership path → target address`.
    private func outgoingReferences(toAddresses addresses: Set<String>? = nil) -> [Set<String>] {
        var outgoing = [Set<String>](repeating: [], count: leaks.count)
        for reference in references
        where outgoing.indices.contains(reference.from) && leaks.indices.contains(reference.to) {
            if let addresses, !addresses.contains(leaks[reference.to].address) { continue }
            outgoing[reference.from].insert(
                "\(reference.ownership) \(reference.path.text) → \(leaks[reference.to].address)")
        }
        return outgoing
    }

    /// The addresses of the orphans this report found (the single member of each root group of kind
    /// ``Cycle/orphanKind``), for a confirmation check (`LeakChecker.check(orphanScan:knownOrphans:)`).
    public var orphanAddresses: Set<UInt> {
        Set(
            cycles.filter(\.isOrphan).flatMap { cycle in
                cycle.members.compactMap { id in
                    leaks.indices.contains(id) ? UInt(leaks[id].address.dropFirst(2), radix: 16) : nil
                }
            })
    }
}
