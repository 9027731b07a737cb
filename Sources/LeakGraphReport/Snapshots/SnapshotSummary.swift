import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphModel

/// What `leakgraph snapshot FILE` shows, as a value (its `--json` form): the histogram of objects by
/// type or creation site with shallow and retained bytes, the biggest dominators, and the
/// accumulation points.
public struct SnapshotSummary: Sendable, Codable, Equatable {
    /// The program and the moment.
    public var program: String
    /// The program's arguments.
    public var arguments: [String]
    /// When the snapshot was taken (ISO 8601, UTC).
    public var time: String
    /// `heap`, or `leakReport` for a leak report opened as a snapshot (its leaked objects alone).
    public var origin: String
    /// Live objects, their bytes, references, roots.
    public var objects: Int
    public var bytes: UInt64
    public var references: Int
    public var roots: Int
    /// Leaked objects and their bytes.
    public var leakedObjects: Int
    public var leakedBytes: UInt64
    /// `type` or `site`.
    public var groupedBy: String
    /// The groups, most retained bytes first (at most the number asked for).
    public var rows: [Row]
    /// Groups left out of ``rows``.
    public var moreRows: Int
    /// The top of the dominator tree: the objects no other object dominates (held by roots, or a leak
    /// group's members), most retained bytes first.
    public var dominators: [Dominator]
    /// Where memory accumulates (``SnapshotAnalysis/accumulationPoints(in:minimumShare:minimumChildren:)``).
    public var accumulationPoints: [Accumulation]
    /// What the walk could not read exactly.
    public var diagnostics: [WalkDiagnostic]

    /// One group: a type or a creation site.
    public struct Row: Sendable, Codable, Equatable {
        /// The type's full name, or the site's text.
        public var name: String
        public var count: Int
        public var shallowBytes: UInt64
        public var retainedBytes: UInt64
        public var leaked: Int
    }

    /// One object and what it retains.
    public struct Dominator: Sendable, Codable, Equatable {
        public var id: Int
        public var address: String
        public var type: String
        public var retainedBytes: UInt64
        /// ``retainedBytes`` as a share of all bytes (0…1).
        public var share: Double
        /// What holds it: the root's holder when it is a root, `dominated by TYPE (0x…)` otherwise,
        /// `leaked` when no root reaches it.
        public var heldBy: String
    }

    /// One accumulation point.
    public struct Accumulation: Sendable, Codable, Equatable {
        /// `largeShare` or `manyOfOneType`.
        public var reason: String
        public var id: Int
        public var address: String
        public var type: String
        public var retainedBytes: UInt64
        public var share: Double
        /// The outermost object dominating it (itself when it is one).
        public var holderAddress: String
        public var holderType: String
        /// The type most of the objects it immediately dominates have, how many, and their bytes.
        public var childType: String?
        public var childCount: Int
        public var childBytes: UInt64
    }

    /// The summary of `snapshot` (analysed as `analysis`), grouped as asked, with `top` rows and
    /// dominators.
    public init(
        snapshot: HeapSnapshot, analysis: SnapshotAnalysis, by grouping: HeapSnapshot.Grouping = .type, top: Int = 20
    ) {
        let info = snapshot.info
        program = info.programPath
        arguments = info.arguments
        time = Date(timeIntervalSince1970: info.time).ISO8601Format()
        origin = info.origin.rawValue
        objects = snapshot.objects.count
        bytes = analysis.totalBytes
        references = snapshot.references.count
        roots = snapshot.roots.count
        let leaked = snapshot.leakedObjects
        leakedObjects = leaked.count
        leakedBytes = leaked.reduce(0) { $0 + snapshot.objects.size[$1] }
        groupedBy = grouping.rawValue
        let (groups, names) = snapshot.groups(by: grouping)
        let totals =
            grouping == .type ? analysis.types : analysis.totals(groups: groups, groupCount: names.count, in: snapshot)
        let sorted = totals.filter { $0.count > 0 }.sorted {
            ($0.retainedBytes, $0.shallowBytes, $1.group) > ($1.retainedBytes, $1.shallowBytes, $0.group)
        }
        rows = sorted.prefix(max(top, 0)).map {
            Row(
                name: names[$0.group], count: $0.count, shallowBytes: $0.shallowBytes, retainedBytes: $0.retainedBytes,
                leaked: $0.leakedCount)
        }
        moreRows = max(sorted.count - rows.count, 0)
        let total = Double(max(analysis.totalBytes, 1))
        let tops = analysis.children(of: analysis.superRoot).flatMap { node -> [Int] in
            Int(node) > analysis.superRoot ? analysis.children(of: Int(node)).map(Int.init) : [Int(node)]
        }
        let biggest = tops.sorted { (analysis.retainedSizes[$0], $1) > (analysis.retainedSizes[$1], $0) }.prefix(
            max(top, 0))
        let rootHolder = Dictionary(
            snapshot.roots.map { ($0.object, $0.holder) }, uniquingKeysWith: { first, _ in first })
        dominators = biggest.map { object in
            let heldBy: String
            if let holder = rootHolder[object] {
                heldBy = "root: held by " + holder.text
            } else if snapshot.objects.flags[object].contains(.leaked) {
                heldBy = "leaked (a root cycle)"
            } else {
                heldBy = "reached from several roots"
            }
            return Dominator(
                id: object, address: snapshot.addressText(of: object), type: snapshot.type(of: object).name,
                retainedBytes: analysis.retainedSizes[object], share: Double(analysis.retainedSizes[object]) / total,
                heldBy: heldBy)
        }
        accumulationPoints = analysis.accumulationPoints(in: snapshot).prefix(max(top, 0)).map { point in
            Accumulation(
                reason: point.reason.rawValue, id: point.object, address: snapshot.addressText(of: point.object),
                type: snapshot.type(of: point.object).name, retainedBytes: point.retainedBytes, share: point.share,
                holderAddress: snapshot.addressText(of: point.holder), holderType: snapshot.type(of: point.holder).name,
                childType: point.childType.map { snapshot.types[$0].name }, childCount: point.childCount,
                childBytes: point.childBytes)
        }
        diagnostics = snapshot.diagnostics
    }
}
