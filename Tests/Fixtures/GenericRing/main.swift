// Rings of a generic class, `Node<T>`, whose first field is the generic `value: T`.
// leak: a ring of three Node<Int>, and a ring of three Node<Payload> each holding its own Payload —
// 9 leaked objects, 2 root cycles; the second holds the three Payloads.
// fixed: both rings are closed by a `weak` reference — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
    case .leak: last.next = first  // store: leak Node.next
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
