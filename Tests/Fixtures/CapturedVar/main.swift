// A closure captures a local `var`, which lives in a heap box; the var later holds
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

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
