// BinaryTrees: the allocation-heavy workload of scripts/bench (the classic benchmark-game program,
// single-threaded). Builds one stretch tree of depth MAX+1, keeps one long-lived tree of depth MAX,
// then for each depth 4, 6, …, MAX builds and drops 2^(MAX-depth+4) trees of that depth and checks
// them. Every node is a small class instance: about 2^(MAX+5) nodes per depth in total.
//
// Usage: BinaryTrees [MAX]   (default 18: about 67 million nodes)

#if canImport(Glibc)
    import Glibc
#endif

final class Node {
    let left: Node?
    let right: Node?

    init(left: Node?, right: Node?) {
        self.left = left
        self.right = right
    }

    /// The number of nodes in this tree.
    func check() -> Int {
        guard let left, let right else { return 1 }
        return 1 + left.check() + right.check()
    }
}

@inline(never)
func makeTree(depth: Int) -> Node {
    depth > 0 ? Node(left: makeTree(depth: depth - 1), right: makeTree(depth: depth - 1)) : Node(left: nil, right: nil)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let maxDepth = Int(arguments.first ?? "18"), maxDepth >= 6 else {
    print("usage: BinaryTrees [MAX_DEPTH >= 6]")
    exit(64)
}

var total = 0
let stretchDepth = maxDepth + 1
let stretch = makeTree(depth: stretchDepth).check()
print("stretch tree of depth \(stretchDepth)\t check: \(stretch)")
total += stretch

let longLived = makeTree(depth: maxDepth)
for depth in stride(from: 4, through: maxDepth, by: 2) {
    let iterations = 1 << (maxDepth - depth + 4)
    var check = 0
    for _ in 0..<iterations {
        check += makeTree(depth: depth).check()
    }
    total += check
    print("\(iterations)\t trees of depth \(depth)\t check: \(check)")
}
print("long lived tree of depth \(maxDepth)\t check: \(longLived.check())")
print("nodes allocated: \(total + longLived.check())")
