// An implicitly unwrapped ring: three nodes linked through `var next: Bead!`.
// leak: 3 leaked Beads, 1 root cycle of 3.
// fixed: the ring is closed by a `weak` reference — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Bead {
    var next: Bead!
    weak var weakNext: Bead!
    var index = 0
}

@inline(never)
func makeRing() {
    let a = Bead(), b = Bead(), c = Bead()
    watch(a)
    watch(b)
    watch(c)
    a.next = b
    b.next = c
    switch mode {
    case .leak: c.next = a  // store: leak Bead.next
    case .fixed: c.weakNext = a
    }
}

makeRing()
finish(expectingAlive: mode == .leak ? 3 : 0)
