// Optionals of enums and enums of optionals.
// - Machine.phase: Phase? = .running(Runner) — an Optional around a multi-payload enum; Runner.machine → Machine.
// - Holder.slot: Slot = .filled(Node?) with the Node — a single-payload enum whose payload is itself an
//   Optional; Node.holder → Holder.
// - Cell.doubly: Item?? — a nested Optional; Item.cell → Cell.
// leak: 6 leaked objects — 3 root cycles {Machine, Runner}, {Holder, Node}, {Cell, Item}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live payload must not look leaked.
var keptAlive: [AnyObject] = []

final class Runner {
    var machine: Machine?
    weak var weakMachine: Machine?
}

enum Phase {
    case idle
    case running(Runner)
    case done(code: Int)
}

final class Machine {
    var phase: Phase?
}

final class Node {
    var holder: Holder?
    weak var weakHolder: Holder?
}

enum Slot {
    case filled(Node?)
    case empty
}

final class Holder {
    var slot: Slot = .empty
}

final class Item {
    var cell: Cell?
    weak var weakCell: Cell?
}

final class Cell {
    var doubly: Item??
}

@inline(never)
func makeMachine() {
    let machine = Machine()
    let runner = Runner()
    watch(machine)
    watch(runner)
    machine.phase = .running(runner)
    switch mode {
    case .leak: runner.machine = machine  // store: leak Runner.machine
    case .fixed:
        runner.weakMachine = machine
        keptAlive.append(machine)
    }
}

@inline(never)
func makeHolder() {
    let holder = Holder()
    let node = Node()
    watch(holder)
    watch(node)
    holder.slot = .filled(node)
    switch mode {
    case .leak: node.holder = holder  // store: leak Node.holder
    case .fixed:
        node.weakHolder = holder
        keptAlive.append(holder)
    }
}

@inline(never)
func makeCell() {
    let cell = Cell()
    let item = Item()
    watch(cell)
    watch(item)
    cell.doubly = .some(.some(item))
    switch mode {
    case .leak: item.cell = cell  // store: leak Item.cell
    case .fixed:
        item.weakCell = cell
        keptAlive.append(cell)
    }
}

makeMachine()
makeHolder()
makeCell()
finish(expectingAlive: 6)
