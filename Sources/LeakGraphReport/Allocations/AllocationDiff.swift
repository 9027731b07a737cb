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

    /// Sites and types listed per section of the text (the JSON has them all).
    public static let textLimit = 25

    /// The diff's text: the totals, the sites that allocate more, those that allocate less, and the
    /// types that changed (ending with a newline).
    ///
    /// ```
    /// ALLOCATIONS: 1,520 → 2,520 objects (+1,000), 302,733 → 326,733 bytes (+24,000); alive at exit 5 → 5
    ///
    /// SITES THAT ALLOCATE MORE
    ///   +1,000 (+24,000 bytes)  Widget at main.swift:29 in makeWidgets(_:)  (1,000 → 2,000)
    /// ```
    public var text: String {
        var lines = [
            "ALLOCATIONS: \(ReportNaming.grouped(oldObjects)) → \(ReportNaming.grouped(newObjects)) objects "
                + "(\(ReportDiff.signed(newObjects - oldObjects))), \(ReportNaming.grouped(oldBytes)) → "
                + "\(ReportNaming.grouped(newBytes)) bytes (\(ReportDiff.signed(newBytes - oldBytes))); alive at exit "
                + "\(ReportNaming.grouped(oldAlive)) → \(ReportNaming.grouped(newAlive))"
        ]
        func section(_ title: String, _ rows: [SiteChange]) {
            guard !rows.isEmpty else { return }
            lines.append("")
            lines.append(title)
            for change in rows.prefix(Self.textLimit) {
                lines.append(
                    "  \(ReportDiff.signed(change.newObjects - change.oldObjects)) (\(ReportDiff.signed(change.newBytes - change.oldBytes)) bytes)  "
                        + "\(ReportNaming.shortName(change.type)) at \(change.site.siteText)  "
                        + "(\(ReportNaming.grouped(change.oldObjects)) → \(ReportNaming.grouped(change.newObjects)))")
            }
            if rows.count > Self.textLimit {
                lines.append("  … and \(ReportNaming.count(rows.count - Self.textLimit, "more site"))")
            }
        }
        section("SITES THAT ALLOCATE MORE", grownSites)
        section("SITES THAT ALLOCATE LESS", sites.filter { $0.newObjects < $0.oldObjects }.reversed())
        let other = sites.filter { $0.newObjects == $0.oldObjects }
        if !other.isEmpty {
            lines.append("")
            lines.append(
                "\(ReportNaming.count(other.count, "site")) made as many objects, with other bytes or alive objects.")
        }
        ReportDiff.appendTypes(Array(types.prefix(Self.textLimit)), titled: "ALLOCATIONS BY TYPE", to: &lines)
        return lines.joined(separator: "\n") + "\n"
    }
}
