// Existentials inside arrays and dictionaries.
// - Registry.delegates: [any RegistryDelegate] with two Screens, each Screen.registry → Registry.
// - Stage.parts: [any Component] = [Caption(owner: actor), Frame(…, owner: actor)] — one element inline, one
//   boxed; Actor.stage → Stage.
// - Board.parts: [String: any Component] = ["title": Caption(owner: pin), "body": Frame(…, owner: pin)];
//   Pin.board → Board.
// - Shelf.items: [AnyObject] and Shelf.things: [Any] holding one Book each; Book.shelf → Shelf.
// leak: 17 leaked objects — 4 root cycles:
//   {Registry, array storage, Screen ×2}, {Stage, array storage, box of Frame, Actor},
//   {Board, dictionary storage, box of Frame, Pin}, {Shelf, 2 array storages, Book ×2}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live element must not look leaked.
var keptAlive: [AnyObject] = []

protocol RegistryDelegate: AnyObject {
    func registryChanged()
}

protocol Component {
    func draw() -> Int
}

final class Registry {
    var delegates: [any RegistryDelegate] = []
}

final class Screen: RegistryDelegate {
    var registry: Registry?
    weak var weakRegistry: Registry?
    func registryChanged() {}
}

final class Actor {
    var stage: Stage?
    weak var weakStage: Stage?
}

final class Pin {
    var board: Board?
    weak var weakBoard: Board?
}

struct Caption<Owner: AnyObject>: Component {
    var owner: Owner
    func draw() -> Int { 1 }
}

struct Frame<Owner: AnyObject>: Component {
    var x: Int
    var y: Int
    var width: Int
    var owner: Owner
    func draw() -> Int { x + y + width }
}

final class Stage {
    var parts: [any Component] = []
}

final class Board {
    var parts: [String: any Component] = [:]
}

final class Book {
    var shelf: Shelf?
    weak var weakShelf: Shelf?
}

final class Shelf {
    var items: [AnyObject] = []
    var things: [Any] = []
}

@inline(never)
func makeRegistry() {
    let registry = Registry()
    watch(registry)
    for _ in 0..<2 {
        let screen = Screen()
        watch(screen)
        registry.delegates.append(screen)
        switch mode {
        case .leak: screen.registry = registry  // store: leak Screen.registry
        case .fixed: screen.weakRegistry = registry
        }
    }
    if mode == .fixed { keptAlive.append(registry) }
}

@inline(never)
func makeStage() {
    let stage = Stage()
    let actor = Actor()
    watch(stage)
    watch(actor)
    stage.parts = [Caption(owner: actor), Frame(x: 1, y: 2, width: 3, owner: actor)]
    switch mode {
    case .leak: actor.stage = stage  // store: leak Actor.stage
    case .fixed:
        actor.weakStage = stage
        keptAlive.append(stage)
    }
}

@inline(never)
func makeBoard() {
    let board = Board()
    let pin = Pin()
    watch(board)
    watch(pin)
    board.parts = ["title": Caption(owner: pin), "body": Frame(x: 4, y: 5, width: 6, owner: pin)]
    switch mode {
    case .leak: pin.board = board  // store: leak Pin.board
    case .fixed:
        pin.weakBoard = board
        keptAlive.append(board)
    }
}

@inline(never)
func makeShelf() {
    let shelf = Shelf()
    let first = Book()
    let second = Book()
    watch(shelf)
    watch(first)
    watch(second)
    shelf.items = [first]
    shelf.things = [second]
    switch mode {
    case .leak:
        first.shelf = shelf  // store: leak Book.shelf
        second.shelf = shelf  // store: leak Book.shelf
    case .fixed:
        first.weakShelf = shelf
        second.weakShelf = shelf
        keptAlive.append(shelf)
    }
}

makeRegistry()
makeStage()
makeBoard()
makeShelf()
finish(expectingAlive: 10)
