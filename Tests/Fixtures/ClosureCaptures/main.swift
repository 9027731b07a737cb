// A stored closure with two captures, `{ self.width + theme.scale }`; its context is
// a heap object of its own (metadata kind 0x400) holding both.
// leak: 3 leaked objects — 1 root cycle {Screen, the closure context} holding the Theme.
// fixed: `[weak self]` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
