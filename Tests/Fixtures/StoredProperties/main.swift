// Row 1 of LEAK-PATTERNS: two classes holding each other through stored properties.
// leak: Owner.partner ⇄ Partner.owner, both strong — 2 leaked objects, 1 root cycle.
// fixed: the back reference is `weak` — nothing leaks.

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
    case .leak: partner.owner = owner
    case .fixed: partner.weakOwner = owner
    }
}

makePair()
finish(expectingAlive: mode == .leak ? 2 : 0)
