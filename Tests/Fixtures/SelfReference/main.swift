// An object holding itself.
// leak: loner.me = loner — 1 leaked object, 1 root cycle (a self-loop).
// fixed: the self-reference is `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Loner {
    var me: Loner?
    weak var weakMe: Loner?
    var count = 1
}

@inline(never)
func makeLoner() {
    let loner = Loner()
    watch(loner)
    switch mode {
    case .leak: loner.me = loner  // store: leak Loner.me
    case .fixed: loner.weakMe = loner
    }
}

makeLoner()
finish(expectingAlive: mode == .leak ? 1 : 0)
