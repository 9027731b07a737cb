// Row 10 of LEAK-PATTERNS: existentials of a non-class protocol hold their value inline (up to three words)
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
    case .leak: presenter.window = window
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
    case .leak: anchor.slot = slot
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
        first.deck = deck
        second.deck = deck
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
