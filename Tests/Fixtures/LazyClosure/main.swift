// A `lazy var` closure capturing self leaks once it is accessed.
// - Button.onTap: `lazy var onTap: () -> Void = { self.tapped() }` — self is the only capture, so the
//   closure's context is the Button itself.
// - Form.validate: `lazy var validate: (String) -> Bool = { [checker] text in self.limit > 3 && … }` — two
//   captures: a context object holding self and a Checker.
// leak: 4 leaked objects — 2 root cycles {Button} and {Form, closure context} holding the Checker.
// fixed: `[weak self]` — nothing leaks; untouched: the lazy vars are never read, no closure exists —
// nothing leaks. In both, a global keeps the owners alive.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed, untouched }

let mode = parseMode(Mode.self)

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
