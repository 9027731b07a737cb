// Not leaks: cycles still reachable from a global variable, a static variable, a lazily initialised static
// constant and a top-level constant. Each is a Hub ⇄ Spoke cycle.
// leak: also one unreachable pair of Lost objects — 2 leaked objects, 1 root cycle; the four reachable
// cycles are not reported.
// fixed: the four reachable cycles only — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Hub {
    var spoke: Spoke?
    var label = 1
}

final class Spoke {
    var hub: Hub?
}

final class Lost {
    var other: Lost?
}

@inline(never)
func makeHubCycle() -> Hub {
    let hub = Hub()
    let spoke = Spoke()
    watch(hub)
    watch(spoke)
    hub.spoke = spoke
    spoke.hub = hub
    return hub
}

var globalHub: Hub?

enum Registry {
    static var shared: Hub?
    static let anchor = makeHubCycle()
}

let topLevelHub = makeHubCycle()

@inline(never)
func makeLostPair() {
    let a = Lost(), b = Lost()
    watch(a)
    watch(b)
    a.other = b
    b.other = a  // store: leak Lost.other
}

globalHub = makeHubCycle()
Registry.shared = makeHubCycle()
if Registry.anchor.label < 0 || topLevelHub.label < 0 {
    print("unreachable")
}
if mode == .leak {
    makeLostPair()
}
finish(expectingAlive: 8 + (mode == .leak ? 2 : 0))
