// Row 5 of LEAK-PATTERNS: rings of a generic class, `Node<T>`, whose first field is the generic `value: T`.
// leak: a ring of three Node<Int>, and a ring of three Node<Payload> each holding its own Payload —
// 9 leaked objects, 2 root cycles; the second holds the three Payloads.
// fixed: both rings are closed by a `weak` reference — nothing leaks.

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

final class Node<T> {
    let value: T
    var next: Node<T>?
    weak var weakNext: Node<T>?

    init(value: T) {
        self.value = value
    }
}

final class Payload {
    var weight: Int

    init(weight: Int) {
        self.weight = weight
    }
}

@inline(never)
func makeRing<T>(of values: [T]) {
    let first = Node(value: values[0])
    watch(first)
    var last = first
    for value in values.dropFirst() {
        let node = Node(value: value)
        watch(node)
        last.next = node
        last = node
    }
    switch mode {
    case .leak: last.next = first
    case .fixed: last.weakNext = first
    }
}

@inline(never)
func makePayloads() -> [Payload] {
    let payloads = [Payload(weight: 1), Payload(weight: 2), Payload(weight: 3)]
    payloads.forEach(watch)
    return payloads
}

makeRing(of: [1, 2, 3])
makeRing(of: makePayloads())
finish(expectingAlive: mode == .leak ? 9 : 0)
