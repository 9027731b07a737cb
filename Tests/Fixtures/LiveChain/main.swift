// Stress: a live chain of 1,000,000 objects held by a global — reachable, so never a leak. It is built
// iteratively and kept alive until exit (freeing it would recurse once per link).
// leak: also one leaked pair of Strays — 2 leaked objects, 1 root cycle, whatever the million live links.
// fixed: the chain alone — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class ChainLink {
    var next: ChainLink?
    var index: Int

    init(index: Int) {
        self.index = index
    }
}

final class Stray {
    var other: Stray?
}

let chainLength = 1_000_000
var chainHead: ChainLink?

@inline(never)
func makeChain() {
    let head = ChainLink(index: 0)
    watch(head)
    var last = head
    for index in 1..<chainLength {
        let link = ChainLink(index: index)
        watch(link)
        last.next = link
        last = link
    }
    chainHead = head
}

@inline(never)
func makeStrays() {
    let a = Stray(), b = Stray()
    watch(a)
    watch(b)
    a.other = b
    b.other = a  // store: leak Stray.other
}

makeChain()
if mode == .leak {
    makeStrays()
}
finish(expectingAlive: chainLength + (mode == .leak ? 2 : 0))
