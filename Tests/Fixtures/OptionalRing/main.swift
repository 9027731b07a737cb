// A ring of ten nodes linked through `var next: Link?`.
// leak: the last node's `next` points to the first — 10 leaked Links, 1 root cycle of 10, each edge `next`.
// fixed: the ring is closed by a `weak` reference — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Link {
    var next: Link?
    weak var weakNext: Link?
    var index: Int

    init(index: Int) {
        self.index = index
    }
}

@inline(never)
func makeRing(count: Int) {
    let first = Link(index: 0)
    watch(first)
    var last = first
    for index in 1..<count {
        let link = Link(index: index)
        watch(link)
        last.next = link
        last = link
    }
    switch mode {
    case .leak: last.next = first  // store: leak Link.next
    case .fixed: last.weakNext = first
    }
}

makeRing(count: 10)
finish(expectingAlive: mode == .leak ? 10 : 0)
