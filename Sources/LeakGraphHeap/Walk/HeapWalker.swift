import CLeakGraphMetadata
import LeakGraphModel

/// Builds the reference graph between live recorded objects from their type metadata.
///
/// The walk reads raw words only: it never loads a reference as a Swift value, so it never changes a
/// retain count. References whose layout cannot be read are not reported as edges; their targets keep
/// an unexplained retain count and so count as externally held (see docs/how-it-works.md).
///
/// It works in two steps: ``scan(count:record:)`` reads every live object into a compact
/// ``HeapScan`` (strong references and retain counts), and ``objectGraph(of:in:record:)`` builds the
/// ``ObjectGraph`` nodes and typed references of chosen objects. A leak check asks for the leaked objects
/// only; ``walk(count:record:)`` asks for all.
public struct HeapWalker {
    let plans = ObjectPlans()

    /// Creates a walker. One walker caches layouts for the metadata it has seen; use one per walk.
    public init() {}

    /// The metadata whose layouts this walker has built (by walking objects or ``prepareLayouts(of:)``).
    package var layoutMetadata: [UInt] { plans.builtMetadata }

    /// Builds the layouts of `metadata` (heap-object metadata that a walk met) that this walker has
    /// not built yet, so that a later walk with this walker, or with a forked copy of it, reads objects
    /// of those types without calling into the runtime. Reads metadata only, never an object.
    /// - Returns: how many layouts were built.
    package func prepareLayouts(of metadata: some Sequence<UInt>) -> Int {
        var built = 0
        for address in metadata {
            guard let pointer = UnsafeRawPointer(bitPattern: address), !plans.hasPlan(for: pointer) else { continue }
            _ = plans.plan(for: pointer)
            built += 1
        }
        return built
    }

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
    /// ones: ``scan(count:record:)``, then ``objectGraph(of:in:record:)`` of every live object.
    ///
    /// - Complexity: O(*n* + *r* log *n*) for *n* records and *r* references found, after one layout
    ///   build per type (plus O(*n* log *n*) when the records are not sorted by address).
    public func walk(count: Int, record: (Int) -> HeapObjectRecord) -> ObjectGraph {
        let scan = scan(count: count, record: record)
        return objectGraph(of: Array(0..<scan.liveObjects), in: scan, record: record)
    }

    /// Reads every live object of `count` records, the `i`-th given by `record(i)`, into a compact scan:
    /// its retain count, its plan and the targets of its strong references. The recorder hands over its
    /// frozen snapshot this way, without copying it.
    ///
    /// Every record's memory must stay readable for the duration of the call. Objects that are
    /// deinitializing or immortal are no nodes. Records sorted by address (as the recorder's snapshot is)
    /// are indexed without hashing: a reference is resolved by binary search over the records.
    ///
    /// - Complexity: O(*n* + *r* log *n*) for *n* records and *r* references found, after one layout
    ///   build per type (plus O(*n* log *n*) when the records are not sorted by address).
    public func scan(count: Int, record: (Int) -> HeapObjectRecord) -> HeapScan {
        scan(count: count, address: { record($0).address }, record: record)
    }

    /// ``scan(count:record:)`` with the records' addresses given apart: `address(i)` is
    /// `record(i).address`, and cheaper. Reference targets are found by binary search over `address`;
    /// `record` is called once per record, and once more for the first object of each diagnostic found
    /// while reading objects (its creation stack names the diagnostic's site).
    public func scan(count: Int, address: (Int) -> UInt, record: (Int) -> HeapObjectRecord) -> HeapScan {
        scan(count: count, address: address, sorted: nil, record: record)
    }

    /// ``scan(count:address:record:)`` of the records whose addresses are `addresses` (ascending: the
    /// recorder's frozen snapshot), the `i`-th record given by `record(i)`: references are resolved by
    /// a binary search of the buffer itself. The scan keeps the buffer: use it (``HeapScan/node(at:address:)``,
    /// ``objectGraph(of:in:addresses:record:)``) only while the buffer is valid.
    public func scan(addresses: UnsafeBufferPointer<UInt>, record: (Int) -> HeapObjectRecord) -> HeapScan {
        scan(count: addresses.count, address: { addresses[$0] }, sorted: addresses, record: record)
    }

    /// How far a scan has come: called every ``progressInterval`` objects with the objects done and the
    /// total (each object counts twice: read, then its references followed).
    package typealias Progress = (_ done: Int, _ total: Int) -> Void

    /// The objects between two calls of a ``Progress``.
    package static let progressInterval = 1 << 16

    /// ``scan(addresses:record:)`` that reports its progress (a check of millions of objects takes
    /// seconds).
    package func scan(
        addresses: UnsafeBufferPointer<UInt>, record: (Int) -> HeapObjectRecord, progress: Progress?
    ) -> HeapScan {
        scan(count: addresses.count, address: { addresses[$0] }, sorted: addresses, record: record, progress: progress)
    }

    private func scan(
        count: Int, address: (Int) -> UInt, sorted: UnsafeBufferPointer<UInt>?, record: (Int) -> HeapObjectRecord,
        progress: Progress? = nil
    ) -> HeapScan {
        precondition(count < Int(UInt32.max), "a heap walk numbers objects with 32 bits")
        var retainCounts = CompactCounts()
        retainCounts.reserveCapacity(count)
        var planIDs = PlanIDs()
        planIDs.reserveCapacity(count)
        var skipped: [Int] = []  // records that are no node: rare
        var distinctPlans: [ObjectPlan] = []
        var planID: [ObjectIdentifier: UInt32] = [:]
        var idOfMetadata: [UInt: UInt32] = [:]
        var lastMetadata: UInt = 0
        var lastID: UInt32?
        var planBytes: [Int] = []
        var planStack: [Int?] = []  // per plan: the creation stack of its first object with one
        var planHasStack: [Bool] = []
        var planIsContext: [Bool] = []  // per plan: closure contexts, whose allocated size is checked
        var contextSizes: [(node: UInt32, size: UInt32)] = []

        for position in 0..<count {
            if let progress, position & (Self.progressInterval - 1) == 0 {
                progress(position, 2 * count)
            }
            let record = record(position)
            guard let object = UnsafeRawPointer(bitPattern: record.address),
                let metadata = UnsafeRawPointer(bitPattern: record.metadata),
                Self.isLiveMortal(object)
            else {
                skipped.append(position)
                continue
            }
            // Objects of one type cluster in memory: remember the last plan's id before asking the cache
            // (an id, not the plan: no retain per object).
            let id: UInt32
            if let lastID, record.metadata == lastMetadata {
                id = lastID
            } else if let known = idOfMetadata[record.metadata] {
                // A type met before in this walk: one lookup, no call into the plan cache.
                id = known
                lastID = id
                lastMetadata = record.metadata
            } else {
                let plan = plans.plan(for: metadata)
                let key = ObjectIdentifier(plan)
                if let known = planID[key] {
                    id = known
                } else {
                    id = UInt32(distinctPlans.count)
                    planID[key] = id
                    distinctPlans.append(plan)
                    planBytes.append(0)
                    planStack.append(nil)
                    planHasStack.append(false)
                    planIsContext.append(plan.kind == .closureContext)
                }
                idOfMetadata[record.metadata] = id
                lastID = id
                lastMetadata = record.metadata
            }
            if planIsContext[Int(id)] {
                // Closure contexts' allocated sizes, in node order: a layout that does not fit is not read.
                contextSizes.append((UInt32(retainCounts.count), UInt32(clamping: record.size)))
            }
            retainCounts.append(UInt32(clamping: lg_retain_count(object)))
            planIDs.append(id)
            planBytes[Int(id)] &+= record.size
            if !planHasStack[Int(id)], let stack = record.stackID {
                planStack[Int(id)] = stack
                planHasStack[Int(id)] = true
            }
        }
        let index = AddressIndex(count: count, skipped: skipped, address: address, sorted: sorted)

        var currentSource = 0
        var continuations: [(holder: Int, task: UInt)] = []
        let scanner = ReferenceScanner(plans: plans, paths: false) { task in
            continuations.append((currentSource, task))
        }
        var unreadableCounts = [Int](repeating: 0, count: distinctPlans.count)
        // Per plan and reason found while reading objects: how many, and the creation stack of the first
        // one with a stack — the object's own, so the site names the very closure (a context of the same
        // shape made elsewhere is another plan).
        var objectUnreadable: [DynamicKey: (count: Int, stackID: Int?)] = [:]
        var nextContext = 0
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(retainCounts.count + 1)
        var targets: [UInt32] = []
        targets.reserveCapacity(retainCounts.count)
        // Per plan: its strong slots when the fast path can read them (StrongSlots), flattened into one
        // table read through buffers, so that the loop copies no array per object.
        var fastStart = [Int32](repeating: -1, count: distinctPlans.count + 1)
        var fastOffsets: [Int] = []
        var fastBridge: [Bool] = []
        for (id, plan) in distinctPlans.enumerated() {
            guard index.holdsAddresses, let slots = StrongSlots(plan) else { continue }
            fastStart[id] = Int32(fastOffsets.count)
            fastOffsets += slots.offsets
            fastBridge += slots.kinds.map { $0 == .bridgeObject }
        }
        var fastEnd = [Int32](repeating: 0, count: distinctPlans.count)
        for id in distinctPlans.indices where fastStart[id] >= 0 {
            fastEnd[id] = fastStart[id] + Int32(StrongSlots(distinctPlans[id])!.offsets.count)
        }
        let hasUnreadable = distinctPlans.map { !$0.unreadable.isEmpty }
        let isEmpty = distinctPlans.map { $0.slots.isEmpty && $0.tail == nil }
        for source in 0..<retainCounts.count {
            if let progress, source & (Self.progressInterval - 1) == 0 {
                progress(count + source, 2 * count)
            }
            let id = Int(planIDs[source])
            if hasUnreadable[id] {
                unreadableCounts[id] += 1
            }
            if isEmpty[id] {
                offsets.append(offsets[source])
                continue
            }
            let sourcePosition = skipped.isEmpty ? source : index.recordPosition(ofNode: source)
            guard let object = UnsafeRawPointer(bitPattern: index.address(ofNode: source) ?? address(sourcePosition))
            else {
                offsets.append(offsets[source])
                continue
            }
            let start = Int(fastStart[id])
            if start >= 0 {
                for slot in start..<Int(fastEnd[id]) {
                    let word = object.word(at: fastOffsets[slot])
                    guard word != 0, !fastBridge[slot] || word >> 60 == 0,
                        let node = index.node(at: word, near: sourcePosition)
                    else { continue }
                    targets.append(UInt32(node))
                }
                precondition(targets.count < Int(UInt32.max), "a heap walk numbers references with 32 bits")
                offsets.append(UInt32(targets.count))
                continue
            }
            let plan = distinctPlans[id]
            currentSource = source
            var size = 0
            if plan.kind == .closureContext {
                while nextContext < contextSizes.count, contextSizes[nextContext].node < source { nextContext += 1 }
                if nextContext < contextSizes.count, contextSizes[nextContext].node == source {
                    size = Int(contextSizes[nextContext].size)
                }
            }
            scanner.scan(
                object: object, plan: plan, size: size,
                found: { _, ownership, target, _ in
                    guard ownership == .strong else { return }
                    let node =
                        index.holdsAddresses
                        ? index.node(at: target, near: sourcePosition) : index.node(at: target, address: address)
                    guard let node else { return }
                    targets.append(UInt32(node))
                },
                unreadable: { reason in
                    let key = DynamicKey(plan: id, reason: reason)
                    var entry = objectUnreadable[key] ?? (0, nil)
                    entry.count += 1
                    if entry.stackID == nil { entry.stackID = record(index.recordPosition(ofNode: source)).stackID }
                    objectUnreadable[key] = entry
                })
            precondition(targets.count < Int(UInt32.max), "a heap walk numbers references with 32 bits")
            offsets.append(UInt32(targets.count))
        }
        var diagnostics =
            distinctPlans.indices
            .filter { unreadableCounts[$0] > 0 }
            .flatMap { id in
                distinctPlans[id].unreadable.map {
                    WalkDiagnostic(
                        typeName: distinctPlans[id].typeName, reason: $0, objectCount: unreadableCounts[id],
                        stackID: planStack[id])
                }
            }
            + objectUnreadable.map {
                WalkDiagnostic(
                    typeName: distinctPlans[$0.key.plan].typeName, reason: $0.key.reason, objectCount: $0.value.count,
                    stackID: $0.value.stackID ?? planStack[$0.key.plan])
            }
        diagnostics.sort { ($0.objectCount, $0.typeName, $0.reason) > ($1.objectCount, $1.typeName, $1.reason) }
        var strongGraph = StrongReferenceGraph(retainCounts: retainCounts, offsets: offsets, targets: targets)
        let (resumptions, children) = TaskResumers.find(
            graph: strongGraph,
            continuations: continuations.map { ($0.holder, index.node(at: $0.task, address: address), $0.task) },
            plan: { distinctPlans[Int(planIDs[$0])] },
            status: { node in
                UnsafeRawPointer(bitPattern: address(index.recordPosition(ofNode: node))).map(lg_task_status_flags) ?? 0
            },
            node: { index.node(at: $0, address: address) })
        if !resumptions.isEmpty || !children.isEmpty {
            strongGraph = strongGraph.adding(
                resumptions.map { ($0.resumer ?? $0.task, $0.task) } + children.map { ($0.parent, $0.child) })
        }
        return HeapScan(
            strongGraph: strongGraph,
            diagnostics: diagnostics, trackedObjects: count, planIDs: planIDs, plans: distinctPlans, index: index,
            planBytes: planBytes, resumptions: resumptions, childAttributions: children)
    }

    /// The graph of the live objects `nodes` of `scan` (node indices, ascending): their nodes and every
    /// reference between two of them, of every ownership, with typed paths, read again from memory.
    ///
    /// `record` must give the same records as for the scan, and their memory must still be readable. The
    /// graph's nodes are `nodes` in order, its references ordered by source as the walk finds them; it
    /// keeps the scan's diagnostics and counts, and the live objects not in `nodes` in
    /// ``ObjectGraph/liveObjectsLeftOut``. Each node's retain count is the one the scan read.
    ///
    /// - Complexity: O(*k* log *n* + *r* log *n*) for *k* nodes and the *r* references found in them.
    public func objectGraph(of nodes: [Int], in scan: HeapScan, record: (Int) -> HeapObjectRecord) -> ObjectGraph {
        objectGraph(of: nodes, in: scan, address: { record($0).address }, record: record)
    }

    /// ``objectGraph(of:in:record:)`` of a scan made by ``scan(addresses:record:)``, with the same buffer.
    public func objectGraph(
        of nodes: [Int], in scan: HeapScan, addresses: UnsafeBufferPointer<UInt>, record: (Int) -> HeapObjectRecord
    ) -> ObjectGraph {
        objectGraph(of: nodes, in: scan, address: { addresses[$0] }, record: record)
    }

    /// ``objectGraph(of:in:record:)`` with the records' addresses given apart, as for
    /// ``scan(count:address:record:)``; `record` is called once per node in `nodes`.
    public func objectGraph(
        of nodes: [Int], in scan: HeapScan, address: (Int) -> UInt, record: (Int) -> HeapObjectRecord
    ) -> ObjectGraph {
        let isWhole = nodes.count == scan.liveObjects
        /// The position of `node` in `nodes`, or `nil`.
        func graphIndex(_ node: Int) -> Int? {
            if isWhole { return node }
            let low = partitionPoint(nodes.count) { nodes[$0] < node }
            return low < nodes.count && nodes[low] == node ? low : nil
        }

        var graph = ObjectGraph(
            diagnostics: scan.diagnostics, trackedObjects: scan.trackedObjects,
            liveObjectsLeftOut: scan.liveObjects - nodes.count)
        graph.nodes.reserveCapacity(nodes.count)
        for node in nodes {
            let record = record(scan.index.recordPosition(ofNode: node))
            let plan = scan.plan(of: node)
            graph.nodes.append(
                ObjectNode(
                    address: UInt64(record.address), typeName: plan.typeName, kind: plan.kind, size: record.size,
                    retainCount: Int(scan.strongGraph.retainCounts[node]), stackID: record.stackID))
        }

        let scanner = ReferenceScanner(plans: plans)
        var boxes = Set<Int>()
        var references: [Reference] = []
        references.reserveCapacity(nodes.count)
        // Resumption references (TaskResumers), by resumer node: emitted beside the resumer's reference to
        // the stream storage, with its path.
        var resumptionsByResumer: [Int: [TaskResumption]] = [:]
        var suspendedForever = Set<Int>()
        var heldByCanary: [Int: Int] = [:]  // canary → task
        for resumption in scan.resumptions {
            if let resumer = resumption.resumer, resumer == resumption.storage {
                heldByCanary[resumer] = resumption.task  // a checked continuation's canary
            } else if let resumer = resumption.resumer {
                resumptionsByResumer[resumer, default: []].append(resumption)
            } else {
                suspendedForever.insert(resumption.task)
            }
        }
        let rawBySource = Dictionary(grouping: scan.rawReferences, by: \.from)
        let childrenByParent = Dictionary(grouping: scan.childAttributions, by: \.parent).mapValues { $0.map(\.child) }
        for (source, node) in nodes.enumerated() {
            guard let object = UnsafeRawPointer(bitPattern: UInt(graph.nodes[source].address)) else { continue }
            var pending = resumptionsByResumer[node] ?? []
            scanner.scan(
                object: object, plan: scan.plan(of: node), size: graph.nodes[source].size,
                found: { path, ownership, target, targetIsBox in
                    guard let targetNode = scan.index.node(at: target, address: address) else { return }
                    if ownership == .strong, let at = pending.firstIndex(where: { $0.storage == targetNode }) {
                        let resumption = pending.remove(at: at)
                        if let taskIndex = graphIndex(resumption.task) {
                            references.append(
                                Reference(
                                    from: source, to: taskIndex, path: path.appending(.resumesTask), ownership: .strong)
                            )
                        }
                    }
                    guard let targetIndex = graphIndex(targetNode) else { return }
                    references.append(Reference(from: source, to: targetIndex, path: path, ownership: ownership))
                    if targetIsBox { boxes.insert(targetIndex) }
                })
            if let task = heldByCanary[node], let taskIndex = graphIndex(task) {
                references.append(
                    Reference(
                        from: source, to: taskIndex, path: [.property("continuation"), .resumesTask], ownership: .strong
                    ))
            }
            if suspendedForever.contains(node) {
                references.append(Reference(from: source, to: source, path: [.suspendedForever], ownership: .strong))
            }
            for child in childrenByParent[node] ?? [] {
                if let target = graphIndex(child) {
                    references.append(Reference(from: source, to: target, path: [.childTask], ownership: .strong))
                }
            }
            for raw in rawBySource[node] ?? [] {
                if let target = graphIndex(raw.to) {
                    references.append(Reference(from: source, to: target, path: [raw.step], ownership: .strong))
                }
            }
        }
        graph.references = references
        Self.markBoxes(boxes, plans: { scan.plan(of: nodes[$0]) }, in: &graph)
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
        let plan: Int
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
