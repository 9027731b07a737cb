// `indirect` enum payloads live in heap boxes of their own.
// - Keeper.tree: Tree = .node(.leaf(keeper), .leaf(other)) — only the `.node` case is indirect: its payload
//   box holds two trees; the first leaf is the keeper itself, the second another Keeper held by the cycle.
// - Ledger.route: Route (an `indirect enum`, every case boxed) = .via("north", .stop(ledger)) — two boxes.
// leak: 6 leaked objects — 2 root cycles: {Keeper, .node box} holding the other Keeper, and {Ledger, .via
// box, .stop box}.
// fixed: the leaves hold a `weak` reference to their keeper (payload `Weak`), a global keeps the shapes
// alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live payload must not look leaked.
var keptAlive: [AnyObject] = []

struct Weak<Object: AnyObject> {
    weak var object: Object?
}

enum Tree {
    case leaf(Keeper)
    case weakLeaf(Weak<Keeper>)
    indirect case node(Tree, Tree)
}

final class Keeper {
    var tree: Tree?
}

indirect enum Route {
    case stop(Ledger)
    case weakStop(Weak<Ledger>)
    case via(String, Route)
}

final class Ledger {
    var route: Route?
}

@inline(never)
func makeTree() {
    let keeper = Keeper()
    let other = Keeper()
    watch(keeper)
    watch(other)
    switch mode {
    case .leak: keeper.tree = .node(.leaf(keeper), .leaf(other))
    case .fixed:
        keeper.tree = .node(.weakLeaf(Weak(object: keeper)), .leaf(other))
        keptAlive.append(keeper)
    }
}

@inline(never)
func makeRoute() {
    let ledger = Ledger()
    watch(ledger)
    switch mode {
    case .leak: ledger.route = .via("north", .stop(ledger))
    case .fixed:
        ledger.route = .via("north", .weakStop(Weak(object: ledger)))
        keptAlive.append(ledger)
    }
}

makeTree()
makeRoute()
finish(expectingAlive: 3)
