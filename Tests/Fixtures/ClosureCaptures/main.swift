// Row 14 of LEAK-PATTERNS: a stored closure with two captures, `{ self.width + theme.scale }`; its context is
// a heap object of its own (metadata kind 0x400) holding both.
// leak: 3 leaked objects — 1 root cycle {Screen, the closure context} holding the Theme.
// fixed: `[weak self]` — nothing leaks.

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

final class Theme {
    var scale = 2
}

final class Screen {
    var width = 640
    var render: (() -> Int)?

    func installStrong(theme: Theme) {
        render = { self.width + theme.scale }
    }

    func installWeak(theme: Theme) {
        render = { [weak self] in (self?.width ?? 0) + theme.scale }
    }
}

@inline(never)
func makeScreen() {
    let screen = Screen()
    let theme = Theme()
    watch(screen)
    watch(theme)
    switch mode {
    case .leak: screen.installStrong(theme: theme)
    case .fixed: screen.installWeak(theme: theme)
    }
    if checking, let render = screen.render {
        print("render returns \(render())")
    }
}

makeScreen()
finish(expectingAlive: mode == .leak ? 2 : 0)
