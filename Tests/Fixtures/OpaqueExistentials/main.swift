// Existentials of a non-class protocol hold their value inline (up to three words)
// or in a heap box.
// - Panel.content: any Component = Caption(owner: controller) — a one-word struct, inline in the buffer;
//   Controller.panel → Panel.
// - Window.root: any Component = Frame(x:y:width:owner:) — four words, too big: the existential points to a
//   box holding the Frame; Presenter.window → Window.
// - Slot.payload: Any = an Anchor instance — a class instance inside `Any`; Anchor.slot → Slot.
// - Deck.card: (any Component)? = Pair(first: Speaker, second: Speaker) — two references inline; each
//   Speaker.deck → Deck.
// leak: 10 leaked objects — 4 root cycles {Panel, Controller}, {Window, box of Frame, Presenter},
// {Slot, Anchor}, {Deck, Speaker, Speaker}.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live value must not look leaked.
var keptAlive: [AnyObject] = []

protocol Component {
    func draw() -> Int
}

struct Caption: Component {
    var owner: Controller
    func draw() -> Int { 1 }
}

struct Frame: Component {
    var x: Int
    var y: Int
    var width: Int
    var owner: Presenter
    func draw() -> Int { x + y + width }
}

struct Pair: Component {
    var first: Speaker
    var second: Speaker
    func draw() -> Int { 2 }
}

struct Blank: Component {
    func draw() -> Int { 0 }
}

final class Controller {
    var panel: Panel?
    weak var weakPanel: Panel?
}

final class Panel {
    var content: any Component = Blank()
}

final class Presenter {
    var window: Window?
    weak var weakWindow: Window?
}

final class Window {
    var root: any Component = Blank()
}

final class Anchor {
    var slot: Slot?
    weak var weakSlot: Slot?
}

final class Slot {
    var payload: Any = 0
}

final class Speaker {
    var deck: Deck?
    weak var weakDeck: Deck?
}

final class Deck {
    var card: (any Component)?
}

@inline(never)
func makePanel() {
    let panel = Panel()
    let controller = Controller()
    watch(panel)
    watch(controller)
    panel.content = Caption(owner: controller)
    switch mode {
    case .leak: controller.panel = panel
    case .fixed:
        controller.weakPanel = panel
        keptAlive.append(panel)
    }
}

@inline(never)
func makeWindow() {
    let window = Window()
    let presenter = Presenter()
    watch(window)
    watch(presenter)
    window.root = Frame(x: 1, y: 2, width: 3, owner: presenter)
    switch mode {
    case .leak: presenter.window = window  // store: leak Presenter.window
    case .fixed:
        presenter.weakWindow = window
        keptAlive.append(window)
    }
}

@inline(never)
func makeSlot() {
    let slot = Slot()
    let anchor = Anchor()
    watch(slot)
    watch(anchor)
    slot.payload = anchor
    switch mode {
    case .leak: anchor.slot = slot  // store: leak Anchor.slot
    case .fixed:
        anchor.weakSlot = slot
        keptAlive.append(slot)
    }
}

@inline(never)
func makeDeck() {
    let deck = Deck()
    let first = Speaker()
    let second = Speaker()
    watch(deck)
    watch(first)
    watch(second)
    deck.card = Pair(first: first, second: second)
    switch mode {
    case .leak:
        first.deck = deck  // store: leak Speaker.deck
        second.deck = deck  // store: leak Speaker.deck
    case .fixed:
        first.weakDeck = deck
        second.weakDeck = deck
        keptAlive.append(deck)
    }
}

makePanel()
makeWindow()
makeSlot()
makeDeck()
finish(expectingAlive: 9)
