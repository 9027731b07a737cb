// Stress: a live chain of 1,000,000 objects held by a global — reachable, so never a leak. It is built
// iteratively and kept alive until exit (freeing it would recurse once per link).
// leak: also one leaked pair of Strays — 2 leaked objects, 1 root cycle, whatever the million live links.
// fixed: the chain alone — nothing leaks.

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
    b.other = a
}

makeChain()
if mode == .leak {
    makeStrays()
}
finish(expectingAlive: chainLength + (mode == .leak ? 2 : 0))
