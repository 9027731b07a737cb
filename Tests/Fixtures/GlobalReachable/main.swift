// Not leaks: cycles still reachable from a global variable, a static variable, a lazily initialised static
// constant and a top-level constant. Each is a Hub ⇄ Spoke cycle.
// leak: also one unreachable pair of Lost objects — 2 leaked objects, 1 root cycle; the four reachable
// cycles are not reported.
// fixed: the four reachable cycles only — nothing leaks.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

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
    b.other = a
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
