import LeakGraphModel

/// What changed between two snapshots of one program: objects grouped by a key (their type, or their
/// creation site), each group's count and bytes before and after, and how many of its objects are the
/// same object in both (the same address, type and creation stack).
public struct SnapshotComparison: Sendable, Equatable {
    /// How a group changed.
    public enum Change: String, Sendable, Hashable, CaseIterable {
        /// Only in the new snapshot.
        case new
        /// More bytes (or, with the same bytes, more objects) than before.
        case grown
        /// Fewer bytes (or objects) than before.
        case shrunk
        /// Only in the old snapshot.
        case gone
        /// The same count and bytes.
        case unchanged
    }

    /// One group.
    public struct Row: Sendable, Hashable {
        /// The group's key (a type name, a creation site).
        public var key: String
        /// Objects and bytes in the old snapshot.
        public var oldCount: Int
        public var oldBytes: UInt64
        /// Objects and bytes in the new snapshot.
        public var newCount: Int
        public var newBytes: UInt64
        /// Objects of the new snapshot that were already in the old one.
        public var kept: Int
        /// How it changed.
        public var change: Change

        /// New bytes less old bytes.
        public var byteDelta: Int64 { Int64(newBytes) - Int64(oldBytes) }
        /// New objects less old objects.
        public var countDelta: Int { newCount - oldCount }
        /// Objects of the new snapshot that were not in the old one.
        public var added: Int { newCount - kept }
    }

    /// Every group, biggest growth in bytes first, then biggest shrinking last.
    public var rows: [Row]
    /// Objects found in both snapshots.
    public var keptObjects: Int
    /// Objects only in the new snapshot.
    public var addedObjects: Int
    /// Objects only in the old snapshot.
    public var removedObjects: Int

    /// Compares `old` and `new`, grouping each object by `oldKeys[o]` and `newKeys[o]`. An object of
    /// `new` is the same as one of `old` when both have the same address, type name and creation
    /// stack (the same frames).
    ///
    /// - Complexity: O(*n* + *m*) for the objects of both, plus sorting the groups.
    public init(old: HeapSnapshot, new: HeapSnapshot, oldKeys: [String], newKeys: [String]) {
        precondition(oldKeys.count == old.objects.count && newKeys.count == new.objects.count)
        // The identity of an object across snapshots: address, type name, stack frames.
        func signatures(_ snapshot: HeapSnapshot) -> [Int] {
            let stacks = snapshot.stacks.map { $0.map { snapshot.frames[$0] }.hashValue }
            let types = snapshot.types.map(\.name.hashValue)
            return (0..<snapshot.objects.count).map { object in
                var hasher = Hasher()
                hasher.combine(snapshot.objects.address[object])
                hasher.combine(types[Int(snapshot.objects.type[object])])
                let stack = snapshot.objects.stack[object]
                hasher.combine(stack < 0 ? 0 : stacks[Int(stack)])
                return hasher.finalize()
            }
        }
        let oldSignatures = signatures(old)
        var oldByAddress = [UInt64: Int](minimumCapacity: old.objects.count)
        for object in 0..<old.objects.count { oldByAddress[old.objects.address[object]] = object }
        let newSignatures = signatures(new)
        var rows: [String: Row] = [:]
        var kept = 0
        for object in 0..<old.objects.count {
            rows[
                oldKeys[object],
                default: Row(
                    key: oldKeys[object], oldCount: 0, oldBytes: 0, newCount: 0, newBytes: 0, kept: 0,
                    change: .unchanged)
            ]
            .oldCount += 1
            rows[oldKeys[object]]!.oldBytes += old.objects.size[object]
        }
        for object in 0..<new.objects.count {
            let key = newKeys[object]
            rows[
                key,
                default: Row(key: key, oldCount: 0, oldBytes: 0, newCount: 0, newBytes: 0, kept: 0, change: .unchanged)
            ].newCount += 1
            rows[key]!.newBytes += new.objects.size[object]
            if let match = oldByAddress[new.objects.address[object]], oldSignatures[match] == newSignatures[object] {
                rows[key]!.kept += 1
                kept += 1
            }
        }
        var result = Array(rows.values)
        for index in result.indices {
            let row = result[index]
            result[index].change =
                row.oldCount == 0
                ? .new
                : row.newCount == 0
                    ? .gone
                    : (row.newBytes, row.newCount) > (row.oldBytes, row.oldCount)
                        ? .grown
                        : (row.newBytes, row.newCount) < (row.oldBytes, row.oldCount) ? .shrunk : .unchanged
        }
        result.sort { ($0.byteDelta, $0.countDelta, $1.key) > ($1.byteDelta, $1.countDelta, $0.key) }
        self.rows = result
        self.keptObjects = kept
        self.addedObjects = new.objects.count - kept
        self.removedObjects = old.objects.count - kept
    }
}
