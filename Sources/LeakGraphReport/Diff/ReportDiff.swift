import LeakGraphModel

/// What changed between two leak reports of the same program: root cycles by fingerprint (new, gone,
/// grown, shrunk, unchanged) and leaked objects by type — what `leakgraph diff OLD.json NEW.json` shows.
///
/// A fingerprint names a leak's shape (types and labels, no addresses), so the same leak made twice
/// counts twice; a root cycle without a fingerprint is keyed by its member types.
public struct ReportDiff: Sendable, Codable, Equatable {
    /// One kind of root cycle in the two reports.
    public struct CycleChange: Sendable, Codable, Equatable {
        /// The cycles' fingerprint, or `types:` and their member types when they have none.
        public var key: String
        /// The member types, as `Type × count`, largest group first.
        public var types: String
        /// How many root cycles of this kind each report has.
        public var oldCount: Int
        /// How many root cycles of this kind the new report has.
        public var newCount: Int
        /// The leaked bytes of these cycles (members and held objects) in the old report.
        public var oldBytes: Int
        /// The leaked bytes of these cycles in the new report.
        public var newBytes: Int
        /// The known library leak these cycles are, when they are one.
        public var knownLibraryLeak: String?
    }

    /// Leaked objects of one type in the two reports.
    public struct TypeChange: Sendable, Codable, Equatable {
        /// The type name.
        public var type: String
        /// Leaked objects of the type in the old report.
        public var oldCount: Int
        /// Leaked objects of the type in the new report.
        public var newCount: Int
        /// Their bytes in the old report.
        public var oldBytes: Int
        /// Their bytes in the new report.
        public var newBytes: Int
    }

    /// Root cycles by kind, in order: new kinds, grown, shrunk, gone, unchanged; within each the most
    /// new bytes first.
    public var cycles: [CycleChange]
    /// Leaked objects by type whose count or bytes changed, the most grown bytes first.
    public var leakedTypes: [TypeChange]
    /// Live objects by type whose count or bytes changed, the most grown bytes first, when both
    /// reports count them (`leakgraph run --live-histogram`); `nil` otherwise. Growth here is memory
    /// still reachable — a cache that only grows, observers never removed.
    public var liveTypes: [TypeChange]?
    /// What changed in the allocation profiles, when both reports carry one (`leakgraph run
    /// --allocations`); `nil` otherwise. Informational: it does not make a regression.
    public var allocations: AllocationDiff?

    /// Kinds of root cycles only in the new report (outside known library leaks): the regressions.
    public var newLeaks: [CycleChange] {
        cycles.filter { $0.oldCount == 0 && $0.newCount > 0 && $0.knownLibraryLeak == nil }
    }

    /// Kinds of root cycles found more often in the new report (outside known library leaks).
    public var grownLeaks: [CycleChange] {
        cycles.filter { $0.oldCount > 0 && $0.newCount > $0.oldCount && $0.knownLibraryLeak == nil }
    }

    /// Compares `old` with `new`.
    ///
    /// - Complexity: O(*n* log *n*) in the leaks and cycles of both reports.
    public init(old: LeakReport, new: LeakReport) {
        var kinds: [String: CycleChange] = [:]
        for (report, isNew) in [(old, false), (new, true)] {
            for cycle in report.cycles {
                let objects = (cycle.members + cycle.holds).filter { report.leaks.indices.contains($0) }
                let bytes = objects.reduce(0) { $0 + report.leaks[$1].size }
                let types = ReportNaming.typeGroups(
                    cycle.members.filter { report.leaks.indices.contains($0) }.map {
                        (name: report.leaks[$0].type, size: report.leaks[$0].size)
                    })
                let typeText = types.map { "\(ReportNaming.shortName($0.type)) × \(ReportNaming.grouped($0.count))" }
                    .joined(separator: ", ")
                let key = cycle.fingerprint ?? "types: " + typeText
                var change =
                    kinds[key]
                    ?? CycleChange(
                        key: key, types: typeText, oldCount: 0, newCount: 0, oldBytes: 0, newBytes: 0,
                        knownLibraryLeak: cycle.knownLibraryLeak)
                if isNew {
                    change.newCount += 1
                    change.newBytes += bytes
                } else {
                    change.oldCount += 1
                    change.oldBytes += bytes
                }
                kinds[key] = change
            }
        }
        func order(_ change: CycleChange) -> Int {
            if change.oldCount == 0 { return 0 }
            if change.newCount > change.oldCount { return 1 }
            if change.newCount == 0 { return 3 }
            if change.newCount < change.oldCount { return 2 }
            return 4
        }
        cycles = kinds.values.sorted {
            (order($0), -$0.newBytes, $0.key) < (order($1), -$1.newBytes, $1.key)
        }

        leakedTypes = Self.changes(
            old: old.leaks.map { TypeTally(type: $0.type, count: 1, bytes: $0.size) },
            new: new.leaks.map { TypeTally(type: $0.type, count: 1, bytes: $0.size) })
        if let oldLive = old.liveTypes, let newLive = new.liveTypes {
            liveTypes = Self.changes(old: oldLive, new: newLive)
        }
        if let oldAllocations = old.allocations, let newAllocations = new.allocations {
            allocations = AllocationDiff(old: oldAllocations, new: newAllocations)
        }
    }

    /// The types whose count or bytes differ between `old` and `new` (rows of one type are summed),
    /// the most grown bytes first.
    static func changes(old: [TypeTally], new: [TypeTally]) -> [TypeChange] {
        var types: [String: TypeChange] = [:]
        for (rows, isNew) in [(old, false), (new, true)] {
            for row in rows {
                var change =
                    types[row.type] ?? TypeChange(type: row.type, oldCount: 0, newCount: 0, oldBytes: 0, newBytes: 0)
                if isNew {
                    change.newCount += row.count
                    change.newBytes += row.bytes
                } else {
                    change.oldCount += row.count
                    change.oldBytes += row.bytes
                }
                types[row.type] = change
            }
        }
        return types.values
            .filter { $0.oldCount != $0.newCount || $0.oldBytes != $0.newBytes }
            .sorted { ($1.newBytes - $1.oldBytes, $0.type) < ($0.newBytes - $0.oldBytes, $1.type) }
    }
}
