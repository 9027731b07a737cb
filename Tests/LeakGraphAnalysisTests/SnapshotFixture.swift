import LeakGraphModel

/// Builds hand-made heap snapshots: objects at fixed addresses (`0x1000 + 0x40 × index`) with a type and
/// a size, strong (or other) references with a property path, and roots. Each object's retain count is
/// its strong in-degree, plus one when it is a root (a global or a local holds it).
struct SnapshotFixture {
    private var objects: [(type: String, size: Int)] = []
    private var references: [(from: Int, to: Int, name: String, ownership: Ownership)] = []
    private var roots = Set<Int>()
    private var leaked = Set<Int>()

    /// Adds an object and returns its index.
    @discardableResult
    mutating func object(_ type: String, size: Int = 32, root: Bool = false) -> Int {
        objects.append((type, size))
        if root { roots.insert(objects.count - 1) }
        return objects.count - 1
    }

    /// Adds `count` objects of `type`.
    mutating func objects(_ count: Int, _ type: String, size: Int = 32) -> [Int] {
        (0 ..< count).map { _ in object(type, size: size) }
    }

    /// Adds a reference stored in property `name`.
    mutating func reference(_ from: Int, _ to: Int, _ name: String = "next", _ ownership: Ownership = .strong) {
        references.append((from, to, name, ownership))
    }

    /// Marks objects leaked (the flag a check sets; the analysis decides reachability itself).
    mutating func markLeaked(_ objects: [Int]) {
        leaked.formUnion(objects)
    }

    /// The snapshot.
    var snapshot: HeapSnapshot {
        var snapshot = HeapSnapshot(info: HeapSnapshot.Info(programPath: "/fixture"))
        var typeIndex: [String: Int] = [:]
        var inDegree = [Int](repeating: 0, count: objects.count)
        for reference in references where reference.ownership == .strong { inDegree[reference.to] += 1 }
        for (index, object) in objects.enumerated() {
            let type = typeIndex[object.type] ?? {
                snapshot.types.append(HeapSnapshot.TypeInfo(name: object.type, kind: .class, module: "Fixture", isProgram: true))
                typeIndex[object.type] = snapshot.types.count - 1
                return snapshot.types.count - 1
            }()
            snapshot.objects.append(
                address: 0x1000 + 0x40 * UInt64(index), type: type, size: object.size,
                retainCount: inDegree[index] + (roots.contains(index) ? 1 : 0), stack: nil,
                flags: leaked.contains(index) ? .leaked : [])
        }
        var paths = SnapshotPathTable()
        for source in objects.indices {
            for reference in references where reference.from == source {
                let path = paths.intern(steps: .property(reference.name), ownership: reference.ownership)
                snapshot.references.append(target: reference.to, path: path, element: nil)
            }
            snapshot.references.endObject()
        }
        snapshot.paths = paths.paths
        snapshot.roots = roots.sorted().map { HeapSnapshot.Root(object: $0, unexplainedRetains: 1) }
        return snapshot
    }
}
