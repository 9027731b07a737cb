// LiveGraph: the analysis-scale workload of scripts/bench. Builds a chain of LIVE objects held by a
// global (live at exit, so a leak check walks them all but reports none) and, optionally, a ring of
// RING objects that nothing refers to once `makeRing` returns (a leak of RING objects in one cycle).
//
// Usage: LiveGraph LIVE [RING]   e.g. `LiveGraph 1000000` or `LiveGraph 0 100000`

#if canImport(Glibc)
    import Glibc
#endif

final class Link {
    let index: Int
    var next: Link?

    init(index: Int) {
        self.index = index
    }
}

/// The live chain's head: a global, so the whole chain is reachable at exit.
nonisolated(unsafe) var liveChain: Link?

@inline(never)
func makeChain(count: Int) -> Link? {
    var head: Link?
    for index in stride(from: count - 1, through: 0, by: -1) {
        let link = Link(index: index)
        link.next = head
        head = link
    }
    return head
}

/// Builds a ring of `count` links and drops the only outside reference to it: the ring leaks.
@inline(never)
func makeRing(count: Int) {
    guard count > 0, let first = makeChain(count: count) else { return }
    var last = first
    while let next = last.next { last = next }
    last.next = first
}

let arguments = CommandLine.arguments.dropFirst()
guard (1...2).contains(arguments.count), let live = Int(arguments.first!), live >= 0,
    let ring = Int(arguments.dropFirst().first ?? "0"), ring >= 0
else {
    print("usage: LiveGraph LIVE [RING]")
    exit(64)
}
liveChain = makeChain(count: live)
makeRing(count: ring)
print("\(live) live objects in a chain, a leaked ring of \(ring)")
