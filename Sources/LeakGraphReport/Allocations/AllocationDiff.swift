import LeakGraphModel

/// What changed between two allocation profiles of the same program: the totals, and each type and
/// creation site that made more or fewer objects or bytes — what `leakgraph diff OLD.json NEW.json`
/// shows when both reports carry `allocations` (`leakgraph run --allocations`).
///
/// Sites are matched by ``AllocationProfile/Site/key`` (type, file name, line and function): a site
/// whose line moved is one site gone and one new.
public struct AllocationDiff: Sendable, Codable, Equatable {
    /// One type and creation site in the two profiles.
    public struct SiteChange: Sendable, Codable, Equatable {
        /// The type.
        public var type: String
        /// The creation site's function, file and line (see ``AllocationProfile/Site``).
        public var function: String?
        public var file: String?
        public var line: Int?
        /// Objects made in the old and the new profile.
        public var oldObjects: Int
        public var newObjects: Int
        /// Their bytes.
        public var oldBytes: Int
        public var newBytes: Int
        /// Objects alive at the end in the old and the new profile.
        public var oldAlive: Int
        public var newAlive: Int

        /// The site as its profile row (the new counts), for its text.
        public var site: AllocationProfile.Site {
            AllocationProfile.Site(
                type: type, function: function, file: file, line: line, objects: newObjects, bytes: newBytes,
                aliveObjects: newAlive)
        }
    }

    /// Objects made in the old and the new profile.
    public var oldObjects: Int
    public var newObjects: Int
    /// Their bytes.
    public var oldBytes: Int
    public var newBytes: Int
    /// Objects alive at the end.
    public var oldAlive: Int
    public var newAlive: Int
    /// The sites whose objects, bytes or alive objects changed: the most added objects first (then
    /// bytes), those that allocate less last.
    public var sites: [SiteChange]
    /// The types whose objects or bytes made changed, the most added objects first.
    public var types: [ReportDiff.TypeChange]

    /// The sites that made more objects in the new profile (new sites included).
    public var grownSites: [SiteChange] { sites.filter { $0.newObjects > $0.oldObjects } }

    /// Compares `old` with `new`.
    ///
    /// - Complexity: O(*s* log *s*) for *s* sites of both.
    public init(old: AllocationProfile, new: AllocationProfile) {
        oldObjects = old.objects
        newObjects = new.objects
        oldBytes = old.bytes
        newBytes = new.bytes
        oldAlive = old.aliveObjects
        newAlive = new.aliveObjects
        var changes: [String: SiteChange] = [:]
        for (profile, isNew) in [(old, false), (new, true)] {
            for site in profile.sites {
                var change =
                    changes[site.key]
                    ?? SiteChange(
                        type: site.type, function: site.function, file: site.file, line: site.line, oldObjects: 0,
                        newObjects: 0,
                        oldBytes: 0, newBytes: 0, oldAlive: 0, newAlive: 0)
                if isNew {
                    change.newObjects += site.objects
                    change.newBytes += site.bytes
                    change.newAlive += site.aliveObjects
                } else {
                    change.oldObjects += site.objects
                    change.oldBytes += site.bytes
                    change.oldAlive += site.aliveObjects
                }
                changes[site.key] = change
            }
        }
        sites = changes.values
            .filter { $0.oldObjects != $0.newObjects || $0.oldBytes != $0.newBytes || $0.oldAlive != $0.newAlive }
            .sorted { a, b in
                let (aGrowth, bGrowth) = (a.newObjects - a.oldObjects, b.newObjects - b.oldObjects)
                if aGrowth != bGrowth { return aGrowth > bGrowth }
                if a.newBytes - a.oldBytes != b.newBytes - b.oldBytes {
                    return a.newBytes - a.oldBytes > b.newBytes - b.oldBytes
                }
                return a.site.key < b.site.key
            }
        types = ReportDiff.changes(
            old: old.types.map { TypeTally(type: $0.type, count: $0.objects, bytes: $0.bytes) },
            new: new.types.map { TypeTally(type: $0.type, count: $0.objects, bytes: $0.bytes) }
        ).sorted { ($1.newCount - $1.oldCount, $0.type) < ($0.newCount - $0.oldCount, $1.type) }
    }
}
