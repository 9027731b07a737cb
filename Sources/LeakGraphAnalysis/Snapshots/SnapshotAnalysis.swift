import LeakGraphModel

/// Where a heap snapshot's memory goes: the dominator tree over strong references, each object's
/// retained size and distance from a root, every type's count and shallow and retained bytes, and
/// (``accumulationPoints(minimumShare:minimumChildren:)``) the objects that hold most of it.
///
/// The tree hangs from one **super-root** above every root: every object held from outside the heap
/// (a retain count above the strong references found into it), as ``LeakAnalysis`` decides them.
/// Leaked objects no root reaches hang from one **leak group** per root cycle (a strongly connected
/// set of leaked objects no other leaked object references), itself under the super-root, so a
/// leaked cycle's retained size is what it keeps alive. Object `o` is node `o`; the super-root is
/// node ``superRoot`` (`objects.count`) and leak group `g` is node `superRoot + 1 + g`.
///
/// An object's **retained size** is its own size plus the sizes of every object it dominates: the
/// memory freed if it were freed. A type's retained size counts each object of the type that no
/// other object of the type dominates (objects of one type that dominate each other count once).
public struct SnapshotAnalysis: Sendable {
    /// The dominator tree over objects, the super-root and the leak groups.
    public let tree: DominatorTree
    /// The super-root's node.
    public let superRoot: Int
    /// Per leak group: its members (objects), ascending.
    public let leakGroups: [[Int]]
    /// Per node (objects, super-root, leak groups): the bytes it retains (its own size included).
    public let retainedSizes: [UInt64]
    /// Per object: the fewest strong references from a root (0 for a root, and for a leak group's
    /// members), or -1 when nothing reaches it.
    public let distances: [Int32]
    /// Per object: whether it is a root.
    public let isRoot: [Bool]
    /// Every type's totals, by index into `HeapSnapshot/types` (``GroupTotals/group`` is the type).
    public let types: [GroupTotals]
    /// The bytes of all objects (each counted once).
    public let totalBytes: UInt64

    /// Per node: its children in the dominator tree, most retained bytes first
    /// (`children[childOffsets[n] ..< childOffsets[n + 1]]`).
    let childOffsets: [UInt32]
    let children: [UInt32]

    /// The totals of one group of objects (a type, a creation site).
    public struct GroupTotals: Sendable, Hashable {
        /// The group's number.
        public var group: Int
        /// Its objects.
        public var count: Int
        /// The sum of their sizes.
        public var shallowBytes: UInt64
        /// The bytes its objects retain, each object that another of the group dominates left out.
        public var retainedBytes: UInt64
        /// Its leaked objects.
        public var leakedCount: Int
    }

    /// Analyses `snapshot`.
    ///
    /// - Complexity: O(*e* log *n*) for *n* objects and *e* references; about 70 bytes per object of
    ///   working memory at its peak.
    public init(_ snapshot: HeapSnapshot) {
        let count = snapshot.objects.count
        let strong = snapshot.strongGraph()
        let orphans = snapshot.objects.flags.indices.filter { snapshot.objects.flags[$0].contains(.orphan) }
        let (roots, reached) = LeakAnalysis.rootsAndReach(of: strong, orphans: orphans)
        var isRoot = [Bool](repeating: false, count: count)
        for root in roots { isRoot[root] = true }

        // Leak groups: the strongly connected components of the unreached objects that no other
        // unreached component references.
        let adjacency = StrongAdjacency(strong)
        let unreached = reached.map { !$0 }
        var groups: [[Int]] = []
        if unreached.contains(true) {
            let components = StronglyConnectedComponents.compute(adjacency, included: unreached)
            var referenced = [Bool](repeating: false, count: components.count)
            for node in 0..<count where unreached[node] {
                for target in adjacency.neighbors(of: node) where unreached[target] {
                    if components.component[target] != components.component[node] {
                        referenced[components.component[target]] = true
                    }
                }
            }
            var groupOfComponent = [Int](repeating: -1, count: components.count)
            for node in 0..<count where unreached[node] {
                let component = components.component[node]
                guard !referenced[component] else { continue }
                if groupOfComponent[component] < 0 {
                    groupOfComponent[component] = groups.count
                    groups.append([])
                }
                groups[groupOfComponent[component]].append(node)
            }
        }

        // The graph the tree is taken over: objects, then the super-root, then the groups.
        let superRoot = count
        let nodeCount = count + 1 + groups.count
        var offsets = strong.offsets
        var targets = strong.targets
        offsets.reserveCapacity(nodeCount + 1)
        targets.reserveCapacity(targets.count + roots.count + groups.count + groups.reduce(0) { $0 + $1.count })
        for root in roots { targets.append(UInt32(root)) }
        for group in groups.indices { targets.append(UInt32(superRoot + 1 + group)) }
        offsets.append(UInt32(targets.count))
        for group in groups {
            for member in group { targets.append(UInt32(member)) }
            offsets.append(UInt32(targets.count))
        }
        let tree = DominatorTree(nodeCount: nodeCount, offsets: offsets, targets: targets, root: superRoot)

        // Distances: breadth first from the super-root; roots and leak groups' members are at 0.
        var distances = [Int32](repeating: -1, count: nodeCount)
        var queue: [UInt32] = [UInt32(superRoot)]
        var seen = [Bool](repeating: false, count: nodeCount)
        seen[superRoot] = true
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            let next: Int32 = node >= count ? 0 : distances[node] + 1
            for edge in Int(offsets[node])..<Int(offsets[node + 1]) {
                let target = Int(targets[edge])
                guard !seen[target] else { continue }
                seen[target] = true
                distances[target] = target >= count ? -1 : next
                queue.append(UInt32(target))
            }
        }
        queue = []
        seen = []
        offsets = []
        targets = []

        // Retained sizes: each node's own size added to its dominator's, in reverse preorder.
        var retained = [UInt64](repeating: 0, count: nodeCount)
        var total: UInt64 = 0
        for object in 0..<count {
            retained[object] = snapshot.objects.size[object]
            total += snapshot.objects.size[object]
        }
        for node in tree.preorder.reversed() where Int(node) != superRoot {
            let dominator = Int(tree.immediateDominators[Int(node)])
            retained[dominator] += retained[Int(node)]
        }

        // Children by retained size, then the types' totals.
        let (childOffsets, children) = Self.children(of: tree, nodeCount: nodeCount, retained: retained)
        let rows = Self.totals(
            groups: snapshot.objects.type, groupCount: snapshot.types.count, snapshot: snapshot, retained: retained,
            superRoot: superRoot, childOffsets: childOffsets, children: children)

        self.tree = tree
        self.superRoot = superRoot
        self.leakGroups = groups
        self.retainedSizes = retained
        self.distances = Array(distances.prefix(count))
        self.isRoot = isRoot
        self.types = rows
        self.totalBytes = total
        self.childOffsets = childOffsets
        self.children = children
    }

    /// The totals of every group, objects grouped by `groups[o]` (in `0 ..< groupCount`).
    public func totals(groups: [UInt32], groupCount: Int, in snapshot: HeapSnapshot) -> [GroupTotals] {
        Self.totals(
            groups: groups, groupCount: groupCount, snapshot: snapshot, retained: retainedSizes, superRoot: superRoot,
            childOffsets: childOffsets, children: children)
    }

    /// Each group's count, shallow and leaked objects, and retained bytes: an object counts towards its
    /// group's retained bytes only when no ancestor in the tree is of its group (a depth-first walk of the
    /// tree keeps each group's open ancestors).
    private static func totals(
        groups: [UInt32], groupCount: Int, snapshot: HeapSnapshot, retained: [UInt64], superRoot: Int,
        childOffsets: [UInt32], children: [UInt32]
    ) -> [GroupTotals] {
        let count = snapshot.objects.count
        var rows = (0..<groupCount).map {
            GroupTotals(group: $0, count: 0, shallowBytes: 0, retainedBytes: 0, leakedCount: 0)
        }
        for object in 0..<count {
            let group = Int(groups[object])
            rows[group].count += 1
            rows[group].shallowBytes += snapshot.objects.size[object]
            if snapshot.objects.flags[object].contains(.leaked) { rows[group].leakedCount += 1 }
        }
        var open = [Int32](repeating: 0, count: groupCount)
        var walk: [(node: UInt32, child: UInt32)] = [(UInt32(superRoot), childOffsets[superRoot])]
        while let top = walk.last {
            let node = Int(top.node)
            if top.child == childOffsets[node + 1] {
                walk.removeLast()
                if node < count { open[Int(groups[node])] -= 1 }
                continue
            }
            walk[walk.count - 1].child += 1
            let child = Int(children[Int(top.child)])
            if child < count {
                let group = Int(groups[child])
                if open[group] == 0 { rows[group].retainedBytes += retained[child] }
                open[group] += 1
            }
            walk.append((UInt32(child), childOffsets[child]))
        }
        return rows
    }

    /// Children lists of the tree (CSR by dominator), each sorted by retained size, largest first, then
    /// by node.
    private static func children(of tree: DominatorTree, nodeCount: Int, retained: [UInt64]) -> ([UInt32], [UInt32]) {
        var offsets = [UInt32](repeating: 0, count: nodeCount + 1)
        for node in 0..<nodeCount where node != tree.root && tree.isReached(node) {
            offsets[Int(tree.immediateDominators[node]) + 1] += 1
        }
        for node in 0..<nodeCount { offsets[node + 1] += offsets[node] }
        var fill = offsets
        var children = [UInt32](repeating: 0, count: Int(offsets[nodeCount]))
        for node in 0..<nodeCount where node != tree.root && tree.isReached(node) {
            let dominator = Int(tree.immediateDominators[node])
            children[Int(fill[dominator])] = UInt32(node)
            fill[dominator] += 1
        }
        for node in 0..<nodeCount where offsets[node + 1] - offsets[node] > 1 {
            children[Int(offsets[node])..<Int(offsets[node + 1])].sort {
                retained[Int($0)] != retained[Int($1)] ? retained[Int($0)] > retained[Int($1)] : $0 < $1
            }
        }
        return (offsets, children)
    }

    /// The nodes `node` immediately dominates, most retained bytes first.
    public func children(of node: Int) -> ArraySlice<UInt32> {
        children[Int(childOffsets[node])..<Int(childOffsets[node + 1])]
    }

    /// The leak group of node `node` (a node above `superRoot`), or `nil` when it is an object or the
    /// super-root.
    public func leakGroup(ofNode node: Int) -> Int? {
        node > superRoot ? node - superRoot - 1 : nil
    }

    /// The retained size of object (or node) `node`.
    public func retainedSize(of node: Int) -> UInt64 {
        retainedSizes[node]
    }

    /// The objects on the way from the super-root down to `node` in the dominator tree, outermost first,
    /// `node` last (objects only: the super-root and leak groups are left out).
    public func dominators(of node: Int) -> [Int] {
        var chain: [Int] = []
        var current = node
        while current != superRoot, tree.isReached(current) {
            if current < superRoot { chain.append(current) }
            current = Int(tree.immediateDominators[current])
        }
        return chain.reversed()
    }
}
