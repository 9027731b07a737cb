import LeakGraphModel

/// Shortest chains of strong references from a root to an object: why an object is alive.
///
/// A root is an object whose retain count is above the strong references the walk found into it (its
/// extra retains come from outside the heap: a global, a stack, C memory). Searching backwards from
/// the object over strong references, breadth first, the first root met ends the shortest chain.
public enum RetainerPaths {
    /// The strong references of a ``StrongReferenceGraph`` turned around: for each node, the nodes
    /// with a strong reference to it (one entry per reference).
    public struct Reversed: Sendable {
        /// `sources[offsets[n] ..< offsets[n + 1]]` are the sources of node `n`'s strong in-edges.
        public let offsets: [UInt32]
        /// The sources, grouped by target.
        public let sources: [UInt32]

        /// Reverses `graph`.
        ///
        /// - Complexity: O(*n* + *e*).
        public init(_ graph: StrongReferenceGraph) {
            let count = graph.nodeCount
            var offsets = [UInt32](repeating: 0, count: count + 1)
            for target in graph.targets { offsets[Int(target) + 1] += 1 }
            for node in 0..<count { offsets[node + 1] += offsets[node] }
            var next = Array(offsets.dropLast())
            var sources = [UInt32](repeating: 0, count: graph.targets.count)
            for node in 0..<count {
                for edge in Int(graph.offsets[node])..<Int(graph.offsets[node + 1]) {
                    let target = Int(graph.targets[edge])
                    sources[Int(next[target])] = UInt32(node)
                    next[target] += 1
                }
            }
            self.offsets = offsets
            self.sources = sources
        }

        /// The number of strong references into `node`.
        public func inDegree(of node: Int) -> Int {
            Int(offsets[node + 1] - offsets[node])
        }
    }

    /// The shortest chain of strong references from a root to `target`, root first and `target` last;
    /// `nil` when no root reaches it (it is leaked).
    ///
    /// `target`'s own unexplained retains are taken last: whoever asks about an object usually holds it
    /// in a local variable, so another root's chain, when there is one, is the answer; only when no other
    /// root reaches it is the chain just `[target]`.
    ///
    /// - Complexity: O(*n* + *e*) at worst, O(what lies within the chain's length) typically; the
    ///   search marks what it met in an array of *n* 32-bit entries.
    public static func shortestChain(to target: Int, in graph: StrongReferenceGraph, reversed: Reversed) -> [Int]? {
        func isRoot(_ node: Int) -> Bool { Int(graph.retainCounts[node]) > reversed.inDegree(of: node) }
        // `parent[node]` is one step closer to the target; -1 for a node not met yet.
        var parent = [Int32](repeating: -1, count: graph.nodeCount)
        parent[target] = Int32(target)
        var queue = [Int32(target)]
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            if node != target, isRoot(node) {
                // Walk back to the target.
                var chain = [node]
                var current = node
                while current != target {
                    current = Int(parent[current])
                    chain.append(current)
                }
                return chain
            }
            for edge in Int(reversed.offsets[node])..<Int(reversed.offsets[node + 1]) {
                let source = Int(reversed.sources[edge])
                if parent[source] < 0 {
                    parent[source] = Int32(node)
                    queue.append(Int32(source))
                }
            }
        }
        return isRoot(target) ? [target] : nil
    }
}
