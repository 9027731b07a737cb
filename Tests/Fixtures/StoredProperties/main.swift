// Two classes holding each other through stored properties.
// leak: Owner.partner ⇄ Partner.owner, both strong — 2 leaked objects, 1 root cycle.
// fixed: the back reference is `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Owner {
    var partner: Partner?
    var count = 1
}

final class Partner {
    var owner: Owner?
    weak var weakOwner: Owner?
    var count = 2
}

@inline(never)
func makePair() {
    let owner = Owner()
    let partner = Partner()
    watch(owner)
    watch(partner)
    owner.partner = partner
    switch mode {
    case .leak: partner.owner = owner  // store: leak Partner.owner
    case .fixed: partner.weakOwner = owner
    }
}

makePair()
finish(expectingAlive: mode == .leak ? 2 : 0)
