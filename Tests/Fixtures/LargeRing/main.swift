// Stress: a leaked ring of 100,000 objects.
// leak: 100,000 leaked RingNodes, 1 root cycle of 100,000.
// fixed: the ring is closed by a `weak` reference and then taken apart link by link (a chain this long
// must not be freed by recursive releases) — nothing leaks.

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

final class RingNode {
    var next: RingNode?
    weak var weakNext: RingNode?
    var index: Int

    init(index: Int) {
        self.index = index
    }
}

let ringSize = 100_000

@inline(never)
func makeRing() {
    let first = RingNode(index: 0)
    watch(first)
    var last = first
    for index in 1..<ringSize {
        let node = RingNode(index: index)
        watch(node)
        last.next = node
        last = node
    }
    switch mode {
    case .leak:
        last.next = first
    case .fixed:
        last.weakNext = first
        var current = first.next
        first.next = nil
        while let node = current {
            current = node.next
            node.next = nil
        }
    }
}

makeRing()
finish(expectingAlive: mode == .leak ? ringSize : 0)
