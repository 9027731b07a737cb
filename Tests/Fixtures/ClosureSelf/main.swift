// A stored closure that captures only `self` (its context is the object itself).
// leak: `handler = { self.count }` — 1 leaked Button, 1 root cycle (a self-loop through the closure).
// fixed: `[weak self]` — nothing leaks.
// unowned: `[unowned self]` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed, unowned }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Button {
    var count = 1
    var handler: (() -> Int)?

    func installStrong() {
        handler = { self.count }  // store: leak Button.handler
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
