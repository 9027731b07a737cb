// Several independent cycles, one root cycle each: five Peer pairs, three Solo self-loops and two rings of
// four Knots.
// leak: 21 leaked objects, 10 root cycles.
// fixed: every closing reference is `weak` — nothing leaks.

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
    case .leak: b.other = a
    case .fixed: b.weakOther = a
    }
}

@inline(never)
func makeSolo() {
    let solo = Solo()
    watch(solo)
    switch mode {
    case .leak: solo.me = solo
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
    case .leak: knots[3].next = knots[0]
    case .fixed: knots[3].weakNext = knots[0]
    }
}

for _ in 0..<5 { makePair() }
for _ in 0..<3 { makeSolo() }
for _ in 0..<2 { makeKnotRing() }
finish(expectingAlive: mode == .leak ? 21 : 0)
