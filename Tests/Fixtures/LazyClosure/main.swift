// Row 16 of LEAK-PATTERNS: a `lazy var` closure capturing self leaks once it is accessed.
// - Button.onTap: `lazy var onTap: () -> Void = { self.tapped() }` — self is the only capture, so the
//   closure's context is the Button itself.
// - Form.validate: `lazy var validate: (String) -> Bool = { [checker] text in self.limit > 3 && … }` — two
//   captures: a context object holding self and a Checker.
// leak: 4 leaked objects — 2 root cycles {Button} and {Form, closure context} holding the Checker.
// fixed: `[weak self]` — nothing leaks; untouched: the lazy vars are never read, no closure exists —
// nothing leaks. In both, a global keeps the owners alive.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture; this one adds the mode `untouched`)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed, untouched }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed|untouched")
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

/// In the clean modes the owners stay alive, held by this global: a live closure must not look leaked.
var keptAlive: [AnyObject] = []

final class Checker {
    func check(_ text: String) -> Bool { !text.isEmpty }
}

final class Button {
    var taps = 0

    lazy var onTap: () -> Void = { self.tapped() }
    lazy var onTapWeak: () -> Void = { [weak self] in self?.tapped() }

    func tapped() { taps += 1 }
}

final class Form {
    var limit = 10
    let checker: Checker

    init(checker: Checker) {
        self.checker = checker
    }

    lazy var validate: (String) -> Bool = { [checker] text in self.limit > 3 && checker.check(text) }
    lazy var validateWeak: (String) -> Bool = { [weak self, checker] text in
        (self?.limit ?? 0) > 3 && checker.check(text)
    }
}

@inline(never)
func makeButton() {
    let button = Button()
    watch(button)
    switch mode {
    case .leak: button.onTap()
    case .fixed: button.onTapWeak()
    case .untouched: break
    }
    if mode != .leak { keptAlive.append(button) }
}

@inline(never)
func makeForm() {
    let checker = Checker()
    let form = Form(checker: checker)
    watch(form)
    watch(checker)
    switch mode {
    case .leak: _ = form.validate("x")
    case .fixed: _ = form.validateWeak("x")
    case .untouched: break
    }
    if mode != .leak { keptAlive.append(form) }
}

makeButton()
makeForm()
finish(expectingAlive: 3)
