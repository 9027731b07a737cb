import CLeakGraphMetadata
import LeakGraphModel

/// Builds the reference graph between live recorded objects from their type metadata.
///
/// The walk reads raw words only: it never loads a reference as a Swift value, so it never changes a
/// retain count. References whose layout cannot be read are not reported as edges; their targets keep
/// an unexplained retain count and so count as externally held (see docs/how-it-works.md).
public struct HeapWalker {
    private let plans = ObjectPlans()

    /// Creates a walker. One walker caches layouts for the metadata it has seen; use one per walk.
    public init() {}

    /// Walks the objects of `records` and returns the graph between the live ones.
    ///
    /// Every record's memory must stay readable for the duration of the call (the recorder's frozen
    /// heap guarantees it). Objects that are deinitializing or immortal are left out.
    ///
    /// - Complexity: O(*n* log *n* + *r* log *n*) for *n* records and *r* references found, after one
    ///   layout build per type.
    public func walk(_ records: some Collection<HeapObjectRecord>) -> ObjectGraph {
        let array = Array(records)
        return walk(count: array.count) { array[$0] }
    }

    /// Walks `count` records, the `i`-th given by `record(i)`, and returns the graph between the live
    /// ones. The recorder hands over its frozen snapshot this way, without copying it.
    ///
    /// Records sorted by address (as the recorder's snapshot is) are indexed without hashing: a reference
    /// is resolved by binary search over the live objects' addresses.
    ///
    /// - Complexity: O(*n* + *r* log *n*) for *n* records and *r* references found, after one layout
    ///   build per type (plus O(*n* log *n*) when the records are not sorted by address).
    public func walk(count: Int, record: (Int) -> HeapObjectRecord) -> ObjectGraph {
        var graph = ObjectGraph(trackedObjects: count)
        graph.nodes.reserveCapacity(count)
        var addresses: [UInt] = []
        addresses.reserveCapacity(count)
        var planIDs: [Int32] = []
        planIDs.reserveCapacity(count)
        var distinctPlans: [ObjectPlan] = []
        var planID: [ObjectIdentifier: Int32] = [:]
        var lastMetadata: UInt = 0
        var lastPlan: (plan: ObjectPlan, id: Int32)?

        for position in 0 ..< count {
            let record = record(position)
            guard let object = UnsafeRawPointer(bitPattern: record.address),
                let metadata = UnsafeRawPointer(bitPattern: record.metadata),
                Self.isLiveMortal(object)
            else { continue }
            // Objects of one type cluster in memory: remember the last plan before asking the cache.
            let current: (plan: ObjectPlan, id: Int32)
            if let lastPlan, record.metadata == lastMetadata {
                current = lastPlan
            } else {
                let plan = plans.plan(for: metadata)
                let key = ObjectIdentifier(plan)
                if let known = planID[key] {
                    current = (plan, known)
                } else {
                    current = (plan, Int32(distinctPlans.count))
                    planID[key] = current.id
                    distinctPlans.append(plan)
                }
                lastPlan = current
                lastMetadata = record.metadata
            }
            addresses.append(record.address)
            graph.nodes.append(
                ObjectNode(
                    address: UInt64(record.address), typeName: current.plan.typeName, kind: current.plan.kind,
                    size: record.size, retainCount: Int(lg_retain_count(object)), stackID: record.stackID))
            planIDs.append(current.id)
        }
        let index = AddressIndex(addresses)

        let scanner = ReferenceScanner(plans: plans)
        var unreadableCounts = [Int](repeating: 0, count: distinctPlans.count)
        var objectUnreadable: [DynamicKey: Int] = [:]
        var boxes = Set<Int>()
        var references: [Reference] = []
        references.reserveCapacity(graph.nodes.count)
        for source in graph.nodes.indices {
            let plan = distinctPlans[Int(planIDs[source])]
            if !plan.unreadable.isEmpty {
                unreadableCounts[Int(planIDs[source])] += 1
            }
            guard let object = UnsafeRawPointer(bitPattern: UInt(graph.nodes[source].address)) else { continue }
            scanner.scan(
                object: object, plan: plan,
                found: { path, ownership, target, targetIsBox in
                    guard let targetIndex = index.position(of: target) else { return }
                    references.append(Reference(from: source, to: targetIndex, path: path, ownership: ownership))
                    if targetIsBox { boxes.insert(targetIndex) }
                },
                unreadable: { reason in objectUnreadable[DynamicKey(typeName: plan.typeName, reason: reason), default: 0] += 1 })
        }
        graph.references = references
        Self.markBoxes(boxes, plans: { distinctPlans[Int(planIDs[$0])] }, in: &graph)
        graph.diagnostics = distinctPlans.indices
            .filter { unreadableCounts[$0] > 0 }
            .flatMap { id in
                distinctPlans[id].unreadable.map {
                    WalkDiagnostic(typeName: distinctPlans[id].typeName, reason: $0, objectCount: unreadableCounts[id])
                }
            }
            + objectUnreadable.map { WalkDiagnostic(typeName: $0.key.typeName, reason: $0.key.reason, objectCount: $0.value) }
        graph.diagnostics.sort { ($0.objectCount, $0.typeName, $0.reason) > ($1.objectCount, $1.typeName, $1.reason) }
        return graph
    }

    /// Shows single-capture context objects that are referenced as boxes as what they are: a box of
    /// its value, whose references start with the box's value instead of `capture[0]`.
    private static func markBoxes(_ boxes: Set<Int>, plans: (Int) -> ObjectPlan, in graph: inout ObjectGraph) {
        var relabel = Set<Int>()
        for index in boxes where graph.nodes[index].kind == .closureContext {
            guard let boxed = plans(index).boxedTypeName else { continue }
            graph.nodes[index].kind = .box
            graph.nodes[index].typeName = "(box of \(boxed))"
            relabel.insert(index)
        }
        guard !relabel.isEmpty else { return }
        for position in graph.references.indices where relabel.contains(graph.references[position].from) {
            var steps = graph.references[position].path.steps
            if steps.first == .capture(0) {
                steps[0] = .boxValue
                graph.references[position].path = ReferencePath(steps)
            }
        }
    }

    private struct DynamicKey: Hashable {
        let typeName: String
        let reason: String
    }

    /// Whether an object is alive (not deinitializing) and mortal.
    ///
    /// The refcount word's top two bits are `10` for immortal objects, whose counts mean nothing.
    static func isLiveMortal(_ object: UnsafeRawPointer) -> Bool {
        let refCounts = object.word(at: 8)
        if refCounts >> 62 == 0b10 { return false }
        return !lg_is_deallocating(object)
    }
}
