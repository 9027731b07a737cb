import LeakGraphModel

/// What the compact heap walk (``HeapWalker/scan(count:record:)``) found: the strong references and
/// retain counts of every live object, and per object only the id of its layout plan.
///
/// Nodes are the live records in record order (``StrongReferenceGraph`` numbering). No type name, path or
/// weak reference is kept, so a scan costs about 7 bytes per live object (a retain count in a byte,
/// ``CompactCounts``; a plan id in two; a CSR offset in four) and 4 per strong reference;
/// ``HeapWalker/objectGraph(of:in:record:)`` builds the full nodes and typed references of the objects
/// a caller asks for, from the same records, while their memory is still readable.
public struct HeapScan {
    /// The strong references between the live objects and their retain counts.
    public internal(set) var strongGraph: StrongReferenceGraph
    /// Places the walk could not read exactly, over all live objects.
    public let diagnostics: [WalkDiagnostic]
    /// How many records the walk was given (live or not).
    public let trackedObjects: Int
    /// Each node's plan: an index into ``plans``.
    let planIDs: PlanIDs
    /// The distinct plans of the live objects.
    let plans: [ObjectPlan]
    /// Nodes by address, and each node's record.
    let index: AddressIndex
    /// Per plan: the bytes of its live objects.
    let planBytes: [Int]
    /// The suspended tasks whose own retain the walk attributed (``TaskResumers``), each also a strong
    /// reference in ``strongGraph``: from its resumer, or from the task itself.
    let resumptions: [TaskResumption]
    /// Task group children whose own retain the walk attributed to their parent task, each also a strong
    /// reference in ``strongGraph`` (``TaskResumers``).
    var childAttributions: [ChildAttribution] = []
    /// References the holder scan proved (``adding(_:)``), each also a strong reference in ``strongGraph``.
    var rawReferences: [RawReference] = []

    /// The number of live objects (nodes).
    public var liveObjects: Int { strongGraph.nodeCount }

    /// The bytes of the live objects (nodes), as their records give them.
    ///
    /// - Complexity: O(*t*) for *t* distinct types.
    public var liveBytes: Int { planBytes.reduce(0, &+) }

    /// The position of `node`'s record among the records the scan was given.
    ///
    /// - Complexity: O(log *s*) for *s* skipped records.
    public func recordPosition(ofNode node: Int) -> Int {
        index.recordPosition(ofNode: node)
    }

    /// The node of the live object starting at `target`, or `nil`; `address` gives the records'
    /// addresses as for the scan.
    ///
    /// - Complexity: O(log *n*).
    public func node(at target: UInt, address: (Int) -> UInt) -> Int? {
        index.node(at: target, address: address)
    }

    /// The type name of `node` (the runtime's, fully qualified).
    public func typeName(ofNode node: Int) -> String {
        plan(of: node).typeName
    }

    /// The nodes whose type name satisfies `predicate`, ascending; the predicate runs once per type.
    ///
    /// - Complexity: O(*n*) plus one call per distinct plan.
    public func nodes(whereTypeName predicate: (String) -> Bool) -> [Int] {
        let matching = plans.map { predicate($0.typeName) }
        guard matching.contains(true) else { return [] }
        return (0..<planIDs.count).filter { matching[Int(planIDs[$0])] }
    }

    /// Every live object by type, most bytes first (objects of one type with several plans, such as
    /// generic instances, are one row per plan type name).
    public var liveTypes: [TypeTally] {
        var counts = [Int](repeating: 0, count: plans.count)
        for node in 0..<planIDs.count {
            counts[Int(planIDs[node])] += 1
        }
        var rows: [String: TypeTally] = [:]
        for (id, plan) in plans.enumerated() where counts[id] > 0 {
            rows[plan.typeName, default: TypeTally(type: plan.typeName, count: 0, bytes: 0)].count += counts[id]
            rows[plan.typeName]!.bytes += planBytes[id]
        }
        return rows.values.sorted { ($1.bytes, $0.type) < ($0.bytes, $1.type) }
    }

    /// The plan of `node`.
    func plan(of node: Int) -> ObjectPlan {
        plans[Int(planIDs[node])]
    }
}
