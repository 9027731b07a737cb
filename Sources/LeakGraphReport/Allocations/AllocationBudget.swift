/// Limits on what some code may allocate — objects made in all, of given types, and still alive at the
/// end — and the failure a count over them makes: what `assertAllocations` and the `.allocationBudget`
/// trait check.
public struct AllocationBudget: Sendable, Hashable {
    /// The most objects that may be made in all; `nil`: no limit.
    public var objects: Int?
    /// The most objects that may be made of each type, by name: a full name (`App.Widget`) or the
    /// name without its module (`Widget`) — see ``AllocationProfile/type(_:isNamed:)``.
    public var objectsOfType: [String: Int]
    /// The most objects made that may still be alive at the end; `nil`: no limit.
    public var aliveObjects: Int?

    /// Creates a budget.
    public init(objects: Int? = nil, objectsOfType: [String: Int] = [:], aliveObjects: Int? = nil) {
        self.objects = objects
        self.objectsOfType = objectsOfType
        self.aliveObjects = aliveObjects
    }

    /// One limit a count went over.
    public struct Excess: Sendable, Hashable {
        /// What was over: the total, a type (its name as given), or what stayed alive.
        public enum Limit: Sendable, Hashable {
            case objects
            case type(String)
            case alive
        }
        /// Which limit.
        public var limit: Limit
        /// The budget.
        public var budget: Int
        /// What was counted.
        public var counted: Int
    }

    /// The limits `profile` goes over: the total first, then the types by name, then what is alive.
    public func excesses(in profile: AllocationProfile) -> [Excess] {
        var excesses: [Excess] = []
        if let objects, profile.objects > objects {
            excesses.append(Excess(limit: .objects, budget: objects, counted: profile.objects))
        }
        for (type, budget) in objectsOfType.sorted(by: { $0.key < $1.key }) {
            let counted = profile.objects(ofType: type)
            if counted > budget {
                excesses.append(Excess(limit: .type(type), budget: budget, counted: counted))
            }
        }
        if let aliveObjects, profile.aliveObjects > aliveObjects {
            excesses.append(Excess(limit: .alive, budget: aliveObjects, counted: profile.aliveObjects))
        }
        return excesses
    }

    /// Types and sites a failure lists.
    public static let listedRows = 5

    /// The failure message for `profile`, or `nil` when it is within the budget: each limit passed, then
    /// the types and creation sites that made the most objects (and, when too many stayed alive, the
    /// sites of those). What the test libraries made for themselves is not named: how much that is
    /// varies from run to run (``AllocationProfile/excludedObjects`` has it), and the message does not.
    ///
    /// ```
    /// 103 objects allocated, over the budget of at most 100 (3 more).
    /// Most allocated types:
    ///   Widget × 100 (2,400 bytes)
    ///   …
    /// Most allocating sites:
    ///   Widget × 100 at Widgets.swift:9 in makeWidgets(_:)
    /// ```
    ///
    /// - Parameter end: when "alive" was read, for the text (`when the body returned`).
    public func failureMessage(for profile: AllocationProfile, end: String = "when the body returned") -> String? {
        let excesses = excesses(in: profile)
        guard !excesses.isEmpty else { return nil }
        var lines: [String] = []
        for excess in excesses {
            let over =
                "over the budget of at most \(ReportNaming.grouped(excess.budget)) (\(ReportNaming.grouped(excess.counted - excess.budget)) more)"
            switch excess.limit {
            case .objects:
                lines.append(
                    "\(ReportNaming.count(excess.counted, "object")) allocated (\(ReportNaming.count(profile.bytes, "byte"))), \(over)."
                )
            case .type(let type):
                lines.append("\(ReportNaming.count(excess.counted, "\(type) object")) allocated, \(over).")
            case .alive:
                lines.append("\(ReportNaming.count(excess.counted, "object")) still alive \(end), \(over).")
            }
        }
        if !excesses.contains(where: { $0.limit == .objects }) {
            lines.append(
                "In all \(ReportNaming.count(profile.objects, "object")) allocated (\(ReportNaming.count(profile.bytes, "byte")))."
            )
        }
        let types = profile.types
        lines.append("Most allocated types:")
        for type in types.prefix(Self.listedRows) {
            lines.append(
                "  \(ReportNaming.shortName(type.type)) × \(ReportNaming.grouped(type.objects)) (\(ReportNaming.count(type.bytes, "byte")))"
            )
        }
        if types.count > Self.listedRows {
            lines.append("  … and \(ReportNaming.count(types.count - Self.listedRows, "more type"))")
        }
        lines.append("Most allocating sites:")
        for site in profile.sites.prefix(Self.listedRows) {
            lines.append("  \(site.text)")
        }
        if profile.sites.count > Self.listedRows {
            lines.append("  … and \(ReportNaming.count(profile.sites.count - Self.listedRows, "more site"))")
        }
        if excesses.contains(where: { $0.limit == .alive }) {
            lines.append("Still alive \(end):")
            let alive = profile.sites.filter { $0.aliveObjects > 0 }.sorted { $0.aliveObjects > $1.aliveObjects }
            for site in alive.prefix(Self.listedRows) {
                lines.append(
                    "  \(ReportNaming.shortName(site.type)) × \(ReportNaming.grouped(site.aliveObjects)) at \(site.siteText)"
                )
            }
        }
        return lines.joined(separator: "\n")
    }
}
