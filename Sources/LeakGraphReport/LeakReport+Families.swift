extension LeakReport {
    /// Root cycles of one shape: the same fingerprint (``Cycle/fingerprint``) and the same standing (the
    /// checked code's own, accepted by a baseline, or a known library leak). A suite that makes one
    /// leak in a hundred tests has one family of a hundred cycles, read once.
    public struct Family: Sendable, Equatable {
        /// How a family's cycles count.
        public enum Standing: Int, Sendable, Comparable, CaseIterable {
            /// The checked code's own leak: it fails the check.
            case own
            /// Accepted by a baseline (``Cycle/suppressed``): reported, not failing.
            case suppressed
            /// A known leak of a library (``Cycle/knownLibraryLeak``): not the reader's code.
            case knownLibraryLeak

            public static func < (lhs: Standing, rhs: Standing) -> Bool { lhs.rawValue < rhs.rawValue }
        }

        /// The fingerprint the cycles share, `nil` for a cycle without one (a family of its own).
        public var fingerprint: String?
        /// The cycles' positions in ``LeakReport/cycles``, in report order; the first is the one shown.
        public var cycles: [Int]
        /// How the cycles count.
        public var standing: Standing
        /// Leaked objects of the cycles: members and what they hold.
        public var objects: Int
        /// Their bytes.
        public var bytes: Int

        /// The cycle shown for the family (the first in report order).
        public var representative: Int { cycles[0] }
    }

    /// The report's root cycles grouped into ``Family``s: the checked code's own families first, most
    /// cycles first (then in report order), then those a baseline accepts, then known library leaks. Cycles without a fingerprint are families of one.
    ///
    /// - Complexity: O(*c* log *c* + *n*) for *c* cycles and *n* leaks.
    public var families: [Family] {
        var position: [Int: Int] = [:]
        for (index, leak) in leaks.enumerated() where position[leak.id] == nil {
            position[leak.id] = index
        }
        struct Key: Hashable {
            var fingerprint: String
            var standing: Family.Standing
        }
        var families: [Family] = []
        var byKey: [Key: Int] = [:]
        for (index, cycle) in cycles.enumerated() {
            let standing: Family.Standing =
                cycle.knownLibraryLeak != nil ? .knownLibraryLeak : cycle.suppressed != nil ? .suppressed : .own
            let objects = (cycle.members + cycle.holds).compactMap { position[$0] }
            let bytes = objects.reduce(0) { $0 + leaks[$1].size }
            if let fingerprint = cycle.fingerprint,
                let existing = byKey[Key(fingerprint: fingerprint, standing: standing)]
            {
                families[existing].cycles.append(index)
                families[existing].objects += objects.count
                families[existing].bytes += bytes
                continue
            }
            if let fingerprint = cycle.fingerprint {
                byKey[Key(fingerprint: fingerprint, standing: standing)] = families.count
            }
            families.append(
                Family(
                    fingerprint: cycle.fingerprint, cycles: [index], standing: standing, objects: objects.count,
                    bytes: bytes))
        }
        return families.sorted { a, b in
            if a.standing != b.standing { return a.standing < b.standing }
            if a.cycles.count != b.cycles.count { return a.cycles.count > b.cycles.count }
            return a.representative < b.representative
        }
    }

    /// The report's totals by standing: what fails the check apart from known library leaks and what a
    /// baseline accepts — the counts every summary line starts with.
    public struct Totals: Sendable, Codable, Equatable {
        /// Leaked objects of the checked code's own cycles (members and held objects).
        public var ownObjects: Int
        /// Their bytes.
        public var ownBytes: Int
        /// The checked code's own root cycles.
        public var ownCycles: Int
        /// Their families (distinct fingerprints).
        public var ownFamilies: Int
        /// Objects of root cycles a baseline accepts.
        public var suppressedObjects: Int
        /// Their bytes.
        public var suppressedBytes: Int
        /// Root cycles a baseline accepts.
        public var suppressedCycles: Int
        /// Objects of known library leaks.
        public var libraryObjects: Int
        /// Their bytes.
        public var libraryBytes: Int
        /// Known library leaks (root cycles).
        public var libraryCycles: Int

        /// Creates totals.
        public init(
            ownObjects: Int = 0, ownBytes: Int = 0, ownCycles: Int = 0, ownFamilies: Int = 0,
            suppressedObjects: Int = 0,
            suppressedBytes: Int = 0, suppressedCycles: Int = 0, libraryObjects: Int = 0, libraryBytes: Int = 0,
            libraryCycles: Int = 0
        ) {
            self.suppressedBytes = suppressedBytes
            self.ownObjects = ownObjects
            self.ownBytes = ownBytes
            self.ownCycles = ownCycles
            self.ownFamilies = ownFamilies
            self.suppressedObjects = suppressedObjects
            self.suppressedCycles = suppressedCycles
            self.libraryObjects = libraryObjects
            self.libraryBytes = libraryBytes
            self.libraryCycles = libraryCycles
        }
    }

    /// The report's ``Totals``, from its ``families``. Leaked objects in no cycle (never produced by the
    /// builder) count as the checked code's own.
    public var totals: Totals {
        var totals = Totals()
        for family in families {
            switch family.standing {
            case .own:
                totals.ownObjects += family.objects
                totals.ownBytes += family.bytes
                totals.ownCycles += family.cycles.count
                totals.ownFamilies += 1
            case .suppressed:
                totals.suppressedObjects += family.objects
                totals.suppressedBytes += family.bytes
                totals.suppressedCycles += family.cycles.count
            case .knownLibraryLeak:
                totals.libraryObjects += family.objects
                totals.libraryBytes += family.bytes
                totals.libraryCycles += family.cycles.count
            }
        }
        let listed = totals.ownObjects + totals.suppressedObjects + totals.libraryObjects
        if summary.leakedObjects > listed {
            let listedBytes = totals.ownBytes + totals.suppressedBytes + totals.libraryBytes
            totals.ownObjects += summary.leakedObjects - listed
            totals.ownBytes += max(0, summary.leakedBytes - listedBytes)
        }
        return totals
    }
}
