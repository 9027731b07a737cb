/// The dominator tree of a directed graph from one root, by the Lengauer–Tarjan algorithm (the
/// "simple" version, with path compression) without recursion: node `d` dominates `v` when every
/// path from the root to `v` passes through `d`, and ``immediateDominators`` gives each node the
/// closest such `d`.
///
/// Every loop keeps its own stack on the heap, so a chain of ten million nodes needs no deeper call
/// stack than a chain of two.
public struct DominatorTree: Sendable, Equatable {
    /// The value of ``immediateDominators`` for nodes the root does not reach.
    public static let unreached = UInt32.max

    /// The root.
    public let root: Int
    /// Per node: its immediate dominator (the root's is itself), or ``unreached``.
    public let immediateDominators: [UInt32]
    /// The nodes the root reaches, in depth-first preorder (the root first): every node comes after its
    /// immediate dominator.
    public let preorder: [UInt32]

    /// The dominator tree of the graph whose node `n` has the successors
    /// `targets[offsets[n] ..< offsets[n + 1]]`, from `root`.
    ///
    /// - Complexity: O(*e* log *n*) time for *n* nodes and *e* edges; about 40 bytes per node and 4
    ///   per edge of extra memory.
    public init(nodeCount: Int, offsets: [UInt32], targets: [UInt32], root: Int) {
        precondition(offsets.count == nodeCount + 1 && root < nodeCount)
        let none = UInt32.max
        // 1. Depth-first numbering from the root (preorder), iteratively: `number[node]` and `vertex[number]`.
        var number = [UInt32](repeating: none, count: nodeCount)
        var vertex: [UInt32] = []
        var parent: [UInt32] = []  // by number: the number of the DFS parent
        vertex.reserveCapacity(nodeCount)
        parent.reserveCapacity(nodeCount)
        var stack: [(node: UInt32, edge: UInt32)] = [(UInt32(root), offsets[root])]
        number[root] = 0
        vertex.append(UInt32(root))
        parent.append(0)
        while !stack.isEmpty {
            let top = stack.count - 1
            let node = Int(stack[top].node)
            let edge = Int(stack[top].edge)
            if edge == Int(offsets[node + 1]) {
                stack.removeLast()
                continue
            }
            stack[top].edge += 1
            let target = Int(targets[edge])
            if number[target] == none {
                number[target] = UInt32(vertex.count)
                vertex.append(UInt32(target))
                parent.append(number[node])
                stack.append((UInt32(target), offsets[target]))
            }
        }
        let count = vertex.count

        // Predecessors of every reached node, by number (unreached sources are no predecessors).
        var predecessorOffsets = [UInt32](repeating: 0, count: count + 1)
        for source in 0..<nodeCount where number[source] != none {
            for edge in Int(offsets[source])..<Int(offsets[source + 1]) {
                predecessorOffsets[Int(number[Int(targets[edge])]) + 1] += 1
            }
        }
        for index in 0..<count { predecessorOffsets[index + 1] += predecessorOffsets[index] }
        var fill = predecessorOffsets
        var predecessors = [UInt32](repeating: 0, count: Int(predecessorOffsets[count]))
        for source in 0..<nodeCount where number[source] != none {
            for edge in Int(offsets[source])..<Int(offsets[source + 1]) {
                let target = Int(number[Int(targets[edge])])
                predecessors[Int(fill[target])] = number[source]
                fill[target] += 1
            }
        }
        fill = []

        // 2. Semidominators, then immediate dominators relative to them, in reverse preorder. All by number.
        var semi = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = UInt32(index) }
            initialized = count
        }
        var label = semi
        var ancestor = [UInt32](repeating: none, count: count)
        var dominator = [UInt32](repeating: 0, count: count)
        var bucketHead = [UInt32](repeating: none, count: count)
        var bucketNext = [UInt32](repeating: none, count: count)
        var path: [UInt32] = []

        /// The node of least semidominator on the compressed path from `node` up to its forest root.
        func evaluate(_ node: UInt32) -> UInt32 {
            guard ancestor[Int(node)] != none else { return node }
            // Compress the path: collect it, then fold labels from the top down.
            var current = node
            while ancestor[Int(ancestor[Int(current)])] != none {
                path.append(current)
                current = ancestor[Int(current)]
            }
            while let next = path.popLast() {
                let up = ancestor[Int(next)]
                if semi[Int(label[Int(up)])] < semi[Int(label[Int(next)])] {
                    label[Int(next)] = label[Int(up)]
                }
                ancestor[Int(next)] = ancestor[Int(up)]
            }
            return label[Int(node)]
        }

        if count > 1 {
            for w in stride(from: count - 1, through: 1, by: -1) {
                for edge in Int(predecessorOffsets[w])..<Int(predecessorOffsets[w + 1]) {
                    let u = evaluate(predecessors[edge])
                    if semi[Int(u)] < semi[w] { semi[w] = semi[Int(u)] }
                }
                let s = Int(semi[w])
                bucketNext[w] = bucketHead[s]
                bucketHead[s] = UInt32(w)
                let p = parent[w]
                ancestor[w] = p
                var v = bucketHead[Int(p)]
                bucketHead[Int(p)] = none
                while v != none {
                    let u = evaluate(v)
                    dominator[Int(v)] = semi[Int(u)] < semi[Int(v)] ? u : p
                    v = bucketNext[Int(v)]
                }
            }
            // 3. Immediate dominators, in preorder.
            for w in 1..<count where dominator[w] != semi[w] {
                dominator[w] = dominator[Int(dominator[w])]
            }
        }

        var immediate = [UInt32](repeating: none, count: nodeCount)
        immediate[root] = UInt32(root)
        for w in 1..<max(count, 1) {
            immediate[Int(vertex[w])] = vertex[Int(dominator[w])]
        }
        self.root = root
        self.immediateDominators = immediate
        self.preorder = vertex
    }

    /// Whether `node` is reached from the root.
    public func isReached(_ node: Int) -> Bool {
        immediateDominators[node] != Self.unreached
    }

    /// The immediate dominator of `node`, `nil` for the root and for nodes it does not reach.
    public func immediateDominator(of node: Int) -> Int? {
        let dominator = immediateDominators[node]
        return dominator == Self.unreached || node == root ? nil : Int(dominator)
    }
}
