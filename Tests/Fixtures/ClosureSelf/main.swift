// Row 13 of LEAK-PATTERNS: a stored closure that captures only `self` (its context is the object itself).
// leak: `handler = { self.count }` — 1 leaked Button, 1 root cycle (a self-loop through the closure).
// fixed: `[weak self]` — nothing leaks.
// unowned: `[unowned self]` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture; this one adds the mode `unowned`)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed, unowned }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed|unowned")
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

final class Button {
    var count = 1
    var handler: (() -> Int)?

    func installStrong() {
        handler = { self.count }
    }

    func installWeak() {
        handler = { [weak self] in self?.count ?? 0 }
    }

    func installUnowned() {
        handler = { [unowned self] in self.count }
    }
}

@inline(never)
func makeButton() {
    let button = Button()
    watch(button)
    switch mode {
    case .leak: button.installStrong()
    case .fixed: button.installWeak()
    case .unowned: button.installUnowned()
    }
    if checking, let handler = button.handler {
        print("handler returns \(handler())")
    }
}

makeButton()
finish(expectingAlive: mode == .leak ? 1 : 0)
