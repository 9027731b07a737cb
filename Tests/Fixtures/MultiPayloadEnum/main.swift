// Multi-payload enums stored in a class, each set to a case other than the first.
// - Dock.route: Route = .backup(Relay) — two cases hold class references and share the pointer's spare bits
//   for the tag (one word, no extra tag byte); Relay.dock → Dock.
// - Gate.slot: Slot = .guest(Visitor) — beside .owner(Relay) and .code(Int): the Int payload has no spare
//   bits, so the tag is an extra byte after the payload; Visitor.gate → Gate.
// - Tower.link: Link = .both(Antenna, cable: Cable) — a two-word payload; Antenna.tower → Tower, the Cable is
//   held by the cycle but not in it.
// leak: 7 leaked objects — 3 root cycles {Dock, Relay}, {Gate, Visitor}, {Tower, Antenna} holding the Cable.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live payload must not look leaked.
var keptAlive: [AnyObject] = []

final class Relay {
    var dock: Dock?
    weak var weakDock: Dock?
}

enum Route {
    case primary(Relay)
    case backup(Relay)
    case offline
}

final class Dock {
    var route: Route = .offline
}

final class Visitor {
    var gate: Gate?
    weak var weakGate: Gate?
}

enum Slot {
    case owner(Relay)
    case guest(Visitor)
    case code(Int)
    case empty
}

final class Gate {
    var slot: Slot = .code(7)
}

final class Cable {
    var length = 12
}

final class Antenna {
    var tower: Tower?
    weak var weakTower: Tower?
}

enum Link {
    case single(Antenna)
    case both(Antenna, cable: Cable)
    case none
}

final class Tower {
    var link: Link = .none
}

@inline(never)
func makeDock() {
    let dock = Dock()
    let relay = Relay()
    watch(dock)
    watch(relay)
    dock.route = .backup(relay)
    switch mode {
    case .leak: relay.dock = dock  // store: leak Relay.dock
    case .fixed:
        relay.weakDock = dock
        keptAlive.append(dock)
    }
}

@inline(never)
func makeGate() {
    let gate = Gate()
    let visitor = Visitor()
    watch(gate)
    watch(visitor)
    gate.slot = .guest(visitor)
    switch mode {
    case .leak: visitor.gate = gate  // store: leak Visitor.gate
    case .fixed:
        visitor.weakGate = gate
        keptAlive.append(gate)
    }
}

@inline(never)
func makeTower() {
    let tower = Tower()
    let antenna = Antenna()
    let cable = Cable()
    watch(tower)
    watch(antenna)
    watch(cable)
    tower.link = .both(antenna, cable: cable)
    switch mode {
    case .leak: antenna.tower = tower  // store: leak Antenna.tower
    case .fixed:
        antenna.weakTower = tower
        keptAlive.append(tower)
    }
}

makeDock()
makeGate()
makeTower()
finish(expectingAlive: 7)
