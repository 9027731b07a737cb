import LeakGraphModel

extension SnapshotAnalysis {
    /// An object where memory accumulates, in the manner of Eclipse MAT's leak suspects: it retains a
    /// large share of all bytes, or it holds many objects of one type (a cache, an observer list).
    public struct AccumulationPoint: Sendable, Hashable {
        /// Why it was chosen.
        public enum Reason: String, Sendable, Hashable {
            /// A top-level object (or a leak group's member) retains at least the share asked for, and
            /// this is where that memory fans out: below it no single child holds most of it.
            case largeShare
            /// It immediately dominates many objects of one type.
            case manyOfOneType
        }

        /// Why it was chosen.
        public var reason: Reason
        /// The accumulation point: an object.
        public var object: Int
        /// The outermost object that dominates it (itself when it is one): the suspect MAT would name.
        public var holder: Int
        /// The bytes it retains.
        public var retainedBytes: UInt64
        /// ``retainedBytes`` as a share of all bytes.
        public var share: Double
        /// The type most of the objects it immediately dominates have (by bytes retained), if any.
        public var childType: Int?
        /// How many objects of ``childType`` it immediately dominates.
        public var childCount: Int
        /// The bytes they retain.
        public var childBytes: UInt64
    }

    /// The accumulation points of `snapshot` (which this analysis was computed from), largest first: for
    /// every object directly under the super-root or a leak group that retains at least `minimumShare`
    /// of all bytes, the object below it where that memory fans out (following the child that retains
    /// most, while it retains at least 80 % of its parent's bytes); then every object that immediately
    /// dominates at least `minimumChildren` objects of one type. An object is listed once.
    ///
    /// - Complexity: O(*n*) plus the children of the objects listed.
    public func accumulationPoints(
        in snapshot: HeapSnapshot, minimumShare: Double = 0.1, minimumChildren: Int = 100
    ) -> [AccumulationPoint] {
        let total = max(totalBytes, 1)
        var points: [AccumulationPoint] = []
        var listed = Set<Int>()
        let tops = children(of: superRoot).flatMap { node -> [Int] in
            Int(node) > superRoot ? children(of: Int(node)).map(Int.init) : [Int(node)]
        }
        for top in tops where Double(retainedSizes[top]) >= minimumShare * Double(total) {
            var current = top
            while let biggest = children(of: current).first,
                Double(retainedSizes[Int(biggest)]) >= 0.8 * Double(retainedSizes[current])
            {
                current = Int(biggest)
            }
            guard listed.insert(current).inserted else { continue }
            points.append(point(.largeShare, object: current, holder: top, snapshot: snapshot, total: total))
        }
        var collections: [AccumulationPoint] = []
        for node in 0..<superRoot
        where Int(childOffsets[node + 1] - childOffsets[node]) >= minimumChildren && !listed.contains(node) {
            let candidate = point(
                .manyOfOneType, object: node, holder: dominators(of: node).first ?? node, snapshot: snapshot,
                total: total)
            if candidate.childCount >= minimumChildren {
                collections.append(candidate)
            }
        }
        collections.sort { ($0.retainedBytes, $1.object) > ($1.retainedBytes, $0.object) }
        return points + collections
    }

    private func point(
        _ reason: AccumulationPoint.Reason, object: Int, holder: Int, snapshot: HeapSnapshot, total: UInt64
    ) -> AccumulationPoint {
        var byType: [Int: (count: Int, bytes: UInt64)] = [:]
        for child in children(of: object) where Int(child) < superRoot {
            let type = Int(snapshot.objects.type[Int(child)])
            byType[type, default: (0, 0)].count += 1
            byType[type, default: (0, 0)].bytes += retainedSizes[Int(child)]
        }
        let main = byType.max { ($0.value.bytes, $1.key) < ($1.value.bytes, $0.key) }
        return AccumulationPoint(
            reason: reason, object: object, holder: holder, retainedBytes: retainedSizes[object],
            share: Double(retainedSizes[object]) / Double(total), childType: main?.key,
            childCount: main?.value.count ?? 0,
            childBytes: main?.value.bytes ?? 0)
    }
}
