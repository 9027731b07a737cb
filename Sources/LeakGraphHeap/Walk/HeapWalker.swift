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
    /// - Complexity: O(*n* + *r*) for *n* records and *r* references found, after one layout build per type.
    public func walk(_ records: some Collection<HeapObjectRecord>) -> ObjectGraph {
        var graph = ObjectGraph(trackedObjects: records.count)
        graph.nodes.reserveCapacity(records.count)
        var indexOfAddress: [UInt: Int] = [:]
        indexOfAddress.reserveCapacity(records.count)
        var objectPlans: [ObjectPlan] = []
        objectPlans.reserveCapacity(records.count)

        for record in records {
            guard let object = UnsafeRawPointer(bitPattern: record.address),
                let metadata = UnsafeRawPointer(bitPattern: record.metadata),
                Self.isLiveMortal(object)
            else { continue }
            let plan = plans.plan(for: metadata)
            indexOfAddress[record.address] = graph.nodes.count
            graph.nodes.append(
                ObjectNode(
                    address: UInt64(record.address), typeName: plan.typeName, kind: plan.kind, size: record.size,
                    retainCount: Int(lg_retain_count(object)), stackID: record.stackID))
            objectPlans.append(plan)
        }

        let scanner = ReferenceScanner(plans: plans)
        var unreadableCounts: [ObjectIdentifier: (plan: ObjectPlan, count: Int)] = [:]
        var objectUnreadable: [DynamicKey: Int] = [:]
        var boxes = Set<Int>()
        for index in graph.nodes.indices {
            let plan = objectPlans[index]
            if !plan.unreadable.isEmpty {
                unreadableCounts[ObjectIdentifier(plan), default: (plan, 0)].count += 1
            }
            guard let object = UnsafeRawPointer(bitPattern: UInt(graph.nodes[index].address)) else { continue }
            scanner.scan(
                object: object, plan: plan,
                found: { path, ownership, target, targetIsBox in
                    guard let targetIndex = indexOfAddress[target] else { return }
                    graph.references.append(Reference(from: index, to: targetIndex, path: path, ownership: ownership))
                    if targetIsBox { boxes.insert(targetIndex) }
                },
                unreadable: { reason in objectUnreadable[DynamicKey(typeName: plan.typeName, reason: reason), default: 0] += 1 })
        }
        Self.markBoxes(boxes, plans: objectPlans, in: &graph)
        graph.diagnostics = unreadableCounts.values
            .flatMap { entry in
                entry.plan.unreadable.map {
                    WalkDiagnostic(typeName: entry.plan.typeName, reason: $0, objectCount: entry.count)
                }
            }
            + objectUnreadable.map { WalkDiagnostic(typeName: $0.key.typeName, reason: $0.key.reason, objectCount: $0.value) }
        graph.diagnostics.sort { ($0.objectCount, $0.typeName, $0.reason) > ($1.objectCount, $1.typeName, $1.reason) }
        return graph
    }

    /// Shows single-capture context objects that are referenced as boxes as what they are: a box of
    /// its value, whose references start with the box's value instead of `capture[0]`.
    private static func markBoxes(_ boxes: Set<Int>, plans: [ObjectPlan], in graph: inout ObjectGraph) {
        var relabel = Set<Int>()
        for index in boxes where graph.nodes[index].kind == .closureContext {
            guard let boxed = plans[index].boxedTypeName else { continue }
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
