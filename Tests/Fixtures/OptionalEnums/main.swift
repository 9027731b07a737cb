// Row 7 of LEAK-PATTERNS: optionals of enums and enums of optionals.
// - Machine.phase: Phase? = .running(Runner) — an Optional around a multi-payload enum; Runner.machine → Machine.
// - Holder.slot: Slot = .filled(Node?) with the Node — a single-payload enum whose payload is itself an
//   Optional; Node.holder → Holder.
// - Cell.doubly: Item?? — a nested Optional; Item.cell → Cell.
// leak: 6 leaked objects — 3 root cycles {Machine, Runner}, {Holder, Node}, {Cell, Item}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

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
    case .leak: runner.machine = machine
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
    case .leak: node.holder = holder
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
    case .leak: item.cell = cell
    case .fixed:
        item.weakCell = cell
        keptAlive.append(cell)
    }
}

makeMachine()
makeHolder()
makeCell()
finish(expectingAlive: 6)
