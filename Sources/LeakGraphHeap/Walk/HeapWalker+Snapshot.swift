import CLeakGraphMetadata
import LeakGraphModel

extension HeapWalker {
    /// Every live object of `scan` and every reference between two of them, of every ownership, with
    /// typed paths, read again from memory into the columns of a ``HeapSnapshot``: the tables a heap
    /// snapshot needs from the walk.
    ///
    /// The objects are the scan's nodes in order (object `i` is node `i`); references, their order, the
    /// task resumptions and the boxes are exactly those ``objectGraph(of:in:address:record:)`` builds
    /// for the same nodes, so the references among leaked objects equal a leak check's. Each object's
    /// `stack` column holds the recorder's stack id (-1 for none), to be replaced by the caller's
    /// stack table; flags, roots, frames and ``HeapSnapshot/info`` are left for the caller. Types carry
    /// their module and superclasses when the walk knows them (``HeapSnapshot/TypeInfo/isProgram`` is
    /// left `false`).
    ///
    /// `record` must give the same records as for the scan, and their memory must still be readable.
    /// `progress`, when given, is told every 65,536 objects how many have been read.
    ///
    /// - Complexity: O(*n* log *n* + *r* log *n*) for *n* objects and *r* references; about 40 bytes per
    ///   object and 12 per reference.
    public func snapshotTables(
        of scan: HeapScan, address: (Int) -> UInt, record: (Int) -> HeapObjectRecord,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) -> HeapSnapshot {
        let count = scan.liveObjects
        var snapshot = HeapSnapshot(info: HeapSnapshot.Info(programPath: ""))
        snapshot.objects.reserveCapacity(count)
        snapshot.references.offsets.reserveCapacity(count + 1)
        snapshot.references.targets.reserveCapacity(scan.strongGraph.targets.count + count / 4)
        snapshot.references.paths.reserveCapacity(scan.strongGraph.targets.count + count / 4)
        snapshot.references.elements.reserveCapacity(scan.strongGraph.targets.count + count / 4)
        snapshot.diagnostics = scan.diagnostics

        // One type per plan, its module and superclasses read from the metadata of its first object.
        var typeOfPlan = [Int](repeating: -1, count: scan.plans.count)
        for node in 0..<count {
            let plan = Int(scan.planIDs[node])
            let record = record(scan.recordPosition(ofNode: node))
            if typeOfPlan[plan] < 0 {
                typeOfPlan[plan] = snapshot.types.count
                snapshot.types.append(typeInfo(of: scan.plans[plan], metadata: record.metadata))
            }
            snapshot.objects.append(
                address: UInt64(record.address), type: typeOfPlan[plan], size: record.size,
                retainCount: Int(scan.strongGraph.retainCounts[node]), stack: record.stackID)
        }

        var table = SnapshotPathTable()
        let scanner = ReferenceScanner(plans: plans)
        var boxes = Set<Int>()
        var resumptionsByResumer: [Int: [TaskResumption]] = [:]
        var suspendedForever = Set<Int>()
        for resumption in scan.resumptions {
            if let resumer = resumption.resumer {
                resumptionsByResumer[resumer, default: []].append(resumption)
            } else {
                suspendedForever.insert(resumption.task)
            }
        }
        for node in 0..<count {
            defer { snapshot.references.endObject() }
            if node % 65_536 == 0 { progress?(node, count) }
            let plan = scan.plan(of: node)
            guard
                !plan.slots.isEmpty || plan.tail != nil || suspendedForever.contains(node)
                    || resumptionsByResumer[node] != nil,
                let object = UnsafeRawPointer(bitPattern: UInt(snapshot.objects.address[node]))
            else { continue }
            var pending = resumptionsByResumer[node] ?? []
            // References mostly point near their source (objects made together lie together): search
            // outward from it when the index holds the addresses.
            let near = scan.index.holdsAddresses ? scan.recordPosition(ofNode: node) : -1
            scanner.scan(
                object: object, plan: plan,
                found: { path, ownership, target, targetIsBox in
                    guard
                        let targetNode = near >= 0
                            ? scan.index.node(at: target, near: near) : scan.index.node(at: target, address: address)
                    else { return }
                    if ownership == .strong, let at = pending.firstIndex(where: { $0.storage == targetNode }) {
                        let resumption = pending.remove(at: at)
                        let interned = table.intern(path.appending(.resumesTask), ownership: .strong)
                        snapshot.references.append(
                            target: resumption.task, path: interned.path, element: interned.element)
                    }
                    let interned = table.intern(path, ownership: ownership)
                    snapshot.references.append(target: targetNode, path: interned.path, element: interned.element)
                    if targetIsBox { boxes.insert(targetNode) }
                })
            if suspendedForever.contains(node) {
                let interned = table.intern(steps: [.suspendedForever], ownership: .strong)
                snapshot.references.append(target: node, path: interned, element: nil)
            }
        }
        snapshot.paths = table.paths
        markBoxes(boxes, scan: scan, typeOfPlan: typeOfPlan, in: &snapshot)
        return snapshot
    }

    /// The type of `plan`'s objects: module and superclasses from `metadata` when it is a class's.
    private func typeInfo(of plan: ObjectPlan, metadata: UInt) -> HeapSnapshot.TypeInfo {
        var info = HeapSnapshot.TypeInfo(name: plan.typeName, kind: plan.kind)
        guard let metadata = UnsafeRawPointer(bitPattern: metadata), MetadataKind(of: metadata) == .class else {
            return info
        }
        if let descriptor = ClassMetadata(metadata).descriptor {
            info.module = descriptor.moduleName
        }
        var current = ClassMetadata(metadata).superclass
        while let level = current, MetadataKind(of: level) == .class, info.superclasses.count < 64 {
            info.superclasses.append(plans.values.typeName(level))
            current = ClassMetadata(level).superclass
        }
        return info
    }

    /// Context objects referenced as boxes become what they are, as ``objectGraph(of:in:address:record:)``
    /// shows them: a box of their value (its own type, `(box of T)`), whose references start with the
    /// box's value instead of `capture[0]`.
    private func markBoxes(_ boxes: Set<Int>, scan: HeapScan, typeOfPlan: [Int], in snapshot: inout HeapSnapshot) {
        var boxType: [Int: Int] = [:]  // plan → its box type
        var relabelled: [Int: Int] = [:]  // path → the path with `value` for `capture[0]`
        var paths = SnapshotPathTable(snapshot.paths)
        for node in boxes.sorted() where scan.plan(of: node).kind == .closureContext {
            let planID = Int(scan.planIDs[node])
            guard let boxed = scan.plans[planID].boxedTypeName else { continue }
            if boxType[planID] == nil {
                boxType[planID] = snapshot.types.count
                snapshot.types.append(HeapSnapshot.TypeInfo(name: "(box of \(boxed))", kind: .box))
            }
            snapshot.objects.type[node] = UInt32(boxType[planID]!)
            for reference in snapshot.references.range(of: node) where snapshot.references.elements[reference] < 0 {
                let path = Int(snapshot.references.paths[reference])
                if relabelled[path] == nil {
                    var steps = snapshot.paths[path].steps.steps
                    if steps.first == .capture(0) { steps[0] = .boxValue }
                    relabelled[path] = paths.intern(
                        steps: ReferencePath(steps), ownership: snapshot.paths[path].ownership)
                }
                snapshot.references.paths[reference] = UInt32(relabelled[path]!)
            }
        }
        snapshot.paths = paths.paths
    }
}
