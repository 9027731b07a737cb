// Several independent cycles, one root cycle each: five Peer pairs, three Solo self-loops and two rings of
// four Knots.
// leak: 21 leaked objects, 10 root cycles.
// fixed: every closing reference is `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Peer {
    var other: Peer?
    weak var weakOther: Peer?
}

final class Solo {
    var me: Solo?
    weak var weakMe: Solo?
}

final class Knot {
    var next: Knot?
    weak var weakNext: Knot?
}

@inline(never)
func makePair() {
    let a = Peer(), b = Peer()
    watch(a)
    watch(b)
    a.other = b
    switch mode {
    case .leak: b.other = a  // store: leak Peer.other
    case .fixed: b.weakOther = a
    }
}

@inline(never)
func makeSolo() {
    let solo = Solo()
    watch(solo)
    switch mode {
    case .leak: solo.me = solo  // store: leak Solo.me
    case .fixed: solo.weakMe = solo
    }
}

@inline(never)
func makeKnotRing() {
    let knots = [Knot(), Knot(), Knot(), Knot()]
    knots.forEach(watch)
    for index in 0..<3 {
        knots[index].next = knots[index + 1]
    }
    switch mode {
    case .leak: knots[3].next = knots[0]  // store: leak Knot.next
    case .fixed: knots[3].weakNext = knots[0]
    }
}

for _ in 0..<5 { makePair() }
for _ in 0..<3 { makeSolo() }
for _ in 0..<2 { makeKnotRing() }
finish(expectingAlive: mode == .leak ? 21 : 0)
