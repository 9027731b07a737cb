// Row 15 of LEAK-PATTERNS: a closure captures a local `var`, which lives in a heap box; the var later holds
// the owner.
// - Owner.handler = { captured?.calls += 1 } where `var captured: Owner?` is assigned the owner afterwards:
//   the closure's only capture is the box, so the box is the closure's context; Owner → box → Owner.
// - Console.printer = { state.count += 1; … } where `var state = PrinterState(console: nil, count: 0)` (a
//   struct) later gets `state.console = console`, and the closure also captures a Theme: a context object
//   holding the box and the Theme.
// leak: 6 leaked objects — 2 root cycles {Owner, box (read as a closure context)} and {Console, closure
// context, box} holding the Theme.
// fixed: the captured vars are `weak` (the box holds a weak reference), a global keeps the owners alive —
// nothing leaks.

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

/// In the fixed variant the shapes stay alive, held by this global: a live box must not look leaked.
var keptAlive: [AnyObject] = []

final class Owner {
    var handler: (() -> Void)?
    var calls = 0
}

final class Theme {
    var prefix = "> "
}

struct PrinterState {
    var console: Console?
    weak var weakConsole: Console?
    var count: Int
}

final class Console {
    var printer: (() -> String)?
}

@inline(never)
func makeOwner() {
    let owner = Owner()
    watch(owner)
    switch mode {
    case .leak:
        var captured: Owner?
        owner.handler = { captured?.calls += 1 }
        captured = owner
    case .fixed:
        weak var captured: Owner?
        owner.handler = { captured?.calls += 1 }
        captured = owner
        keptAlive.append(owner)
    }
    if checking { owner.handler?() }
}

@inline(never)
func makeConsole() {
    let console = Console()
    let theme = Theme()
    watch(console)
    watch(theme)
    var state = PrinterState(console: nil, count: 0)
    console.printer = {
        state.count += 1
        return theme.prefix + String(state.count)
    }
    switch mode {
    case .leak: state.console = console
    case .fixed:
        state.weakConsole = console
        keptAlive.append(console)
    }
    if checking { print(console.printer?() ?? "") }
}

makeOwner()
makeConsole()
finish(expectingAlive: 3)
