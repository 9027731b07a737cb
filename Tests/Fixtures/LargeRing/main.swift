// Stress: a leaked ring of 100,000 objects.
// leak: 100,000 leaked RingNodes, 1 root cycle of 100,000.
// fixed: the ring is closed by a `weak` reference and then taken apart link by link (a chain this long
// must not be freed by recursive releases) — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class RingNode {
    var next: RingNode?
    weak var weakNext: RingNode?
    var index: Int

    init(index: Int) {
        self.index = index
    }
}

let ringSize = 100_000

@inline(never)
func makeRing() {
    let first = RingNode(index: 0)
    watch(first)
    var last = first
    for index in 1..<ringSize {
        let node = RingNode(index: index)
        watch(node)
        last.next = node
        last = node
    }
    switch mode {
    case .leak:
        last.next = first  // store: leak RingNode.next
    case .fixed:
        last.weakNext = first
        var current = first.next
        first.next = nil
        while let node = current {
            current = node.next
            node.next = nil
        }
    }
}

makeRing()
finish(expectingAlive: mode == .leak ? ringSize : 0)
