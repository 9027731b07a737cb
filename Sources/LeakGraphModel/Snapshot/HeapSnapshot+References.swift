extension HeapSnapshot {
    /// Every reference of a snapshot, grouped by source object in the order the walk found them: the
    /// references of object `o` are entries `offsets[o] ..< offsets[o + 1]` of the other columns.
    public struct References: Sendable, Equatable {
        /// `offsets[o] ..< offsets[o + 1]` are object `o`'s references; one entry more than objects.
        public var offsets: [UInt32] = [0]
        /// Each reference's target object.
        public var targets: [UInt32] = []
        /// Each reference's path: an index into ``HeapSnapshot/paths``.
        public var paths: [UInt32] = []
        /// Each reference's array element (its source is array storage and the reference lies in this
        /// element), or -1.
        public var elements: [Int32] = []

        /// No references (for no objects).
        public init() {}

        /// The number of references.
        public var count: Int { targets.count }

        /// The references of object `source`: indices into the columns.
        public func range(of source: Int) -> Range<Int> {
            Int(offsets[source])..<Int(offsets[source + 1])
        }

        /// Appends one reference of the object whose references are being added (see ``endObject()``).
        public mutating func append(target: Int, path: Int, element: Int?) {
            targets.append(UInt32(target))
            paths.append(UInt32(path))
            elements.append(element.map { Int32(clamping: $0) } ?? -1)
        }

        /// Ends the references of the current object: the next ones belong to the next object.
        public mutating func endObject() {
            precondition(targets.count < Int(UInt32.max), "a snapshot numbers references with 32 bits")
            offsets.append(UInt32(targets.count))
        }
    }

    /// One reference of a snapshot, read from its columns.
    public struct Reference: Sendable, Hashable {
        /// The reference's index.
        public var id: Int
        /// The source object.
        public var from: Int
        /// The target object.
        public var to: Int
        /// The path's index into ``HeapSnapshot/paths``.
        public var path: Int
        /// The array element it lies in, when its source is array storage.
        public var element: Int?
    }

    /// Reference `id`, whose source is `from`.
    public func reference(_ id: Int, from: Int) -> Reference {
        let element = references.elements[id]
        return Reference(
            id: id, from: from, to: Int(references.targets[id]), path: Int(references.paths[id]),
            element: element < 0 ? nil : Int(element))
    }

    /// The references of object `source`, in the order the walk found them.
    public func references(from source: Int) -> [Reference] {
        references.range(of: source).map { reference($0, from: source) }
    }

    /// The full typed path of reference `id`: its element, if any, then its path's steps.
    public func path(ofReference id: Int) -> ReferencePath {
        let steps = paths[Int(references.paths[id])].steps
        let element = references.elements[id]
        return element < 0 ? steps : steps.prepending(.element(Int(element)))
    }

    /// How reference `id` holds its target.
    public func ownership(ofReference id: Int) -> Ownership {
        paths[Int(references.paths[id])].ownership
    }

    /// The strong references and retain counts: what reachability, roots and dominators need.
    ///
    /// - Complexity: O(*n* + *e*).
    public func strongGraph() -> StrongReferenceGraph {
        let strongPath = paths.map { $0.ownership == .strong }
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(objects.count + 1)
        var targets: [UInt32] = []
        targets.reserveCapacity(references.count)
        for source in 0..<objects.count {
            for index in references.range(of: source) where strongPath[Int(references.paths[index])] {
                targets.append(references.targets[index])
            }
            offsets.append(UInt32(targets.count))
        }
        return StrongReferenceGraph(retainCounts: objects.retainCount, offsets: offsets, targets: targets)
    }
}

/// Interns reference paths for a snapshot: one ``HeapSnapshot/Path`` per distinct slot and ownership,
/// a leading array element split off into the reference's element.
public struct SnapshotPathTable: Sendable {
    /// The distinct paths, in the order they were first seen.
    public private(set) var paths: [HeapSnapshot.Path] = []
    private var index: [HeapSnapshot.Path: Int] = [:]

    /// An empty table.
    public init() {}

    /// Recently interned paths by the identity of their step storage: a type's slots share their paths'
    /// storage, so most references are found here without hashing their steps. Each entry keeps its
    /// steps alive, so no other path's storage can take the same address while it is cached.
    private var recent = [(steps: [PathStep], ownership: Ownership, index: Int)?](
        repeating: nil, count: Self.recentSlots)
    private static let recentSlots = 256

    /// The path index and element of a reference stored at `path` with `ownership`.
    public mutating func intern(_ path: ReferencePath, ownership: Ownership) -> (path: Int, element: Int?) {
        if case .element(let element) = path.steps.first {
            return (intern(steps: ReferencePath(Array(path.steps.dropFirst())), ownership: ownership), element)
        }
        let identity = path.steps.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        guard identity != 0 else { return (intern(steps: path, ownership: ownership), nil) }
        let slot = Int((identity >> 4) % UInt(Self.recentSlots))
        if let entry = recent[slot], entry.ownership == ownership,
            entry.steps.withUnsafeBufferPointer({ UInt(bitPattern: $0.baseAddress) }) == identity
        {
            return (entry.index, nil)
        }
        let index = intern(steps: path, ownership: ownership)
        recent[slot] = (path.steps, ownership, index)
        return (index, nil)
    }

    /// The index of the path with `steps` (after any element) and `ownership`.
    public mutating func intern(steps: ReferencePath, ownership: Ownership) -> Int {
        let path = HeapSnapshot.Path(steps: steps, ownership: ownership)
        if let known = index[path] { return known }
        paths.append(path)
        index[path] = paths.count - 1
        return paths.count - 1
    }
}

extension SnapshotPathTable {
    /// A table holding `paths` (distinct), to which more are interned.
    public init(_ paths: [HeapSnapshot.Path]) {
        self.init()
        for path in paths { _ = intern(steps: path.steps, ownership: path.ownership) }
    }
}
