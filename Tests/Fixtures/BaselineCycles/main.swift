// Baselines (issue 13): an old leak a baseline accepts, a new one it does not, and a cache a type pattern
// accepts with what it holds.
// old: Screen ⇄ Presenter (`delegate` strong) — 2 leaked objects, 1 root cycle.
// new: the old cycle and a different one, a Session whose `onEvent` closure captures it (its only capture, so
// the closure context is the session itself) — 3 leaked objects, 2 root cycles.
// cache: the old cycle and ImageCache ⇄ ImageLoader, which holds an array of two Thumbnails that reference
// each other (a held cycle) — 7 leaked objects, 2 root cycles.
// fixed: the back references are `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case old, new, cache, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shapes

final class Screen {
    var presenter: Presenter?
}

final class Presenter {
    var delegate: Screen?
    weak var weakDelegate: Screen?
}

final class Session {
    var onEvent: (() -> Void)?
    var events = 0
}

final class ImageCache {
    var loader: ImageLoader?
    var thumbnails: [Thumbnail] = []
}

final class ImageLoader {
    var cache: ImageCache?
    weak var weakCache: ImageCache?
}

final class Thumbnail {
    var peer: Thumbnail?
}

@inline(never)
func makeScreen() {
    let screen = Screen(), presenter = Presenter()
    watch(screen)
    watch(presenter)
    screen.presenter = presenter
    if mode == .fixed {
        presenter.weakDelegate = screen
    } else {
        presenter.delegate = screen  // store: cache,new,old Presenter.delegate
    }
}

@inline(never)
func makeSession() {
    let session = Session()
    watch(session)
    session.onEvent = { session.events += 1 }  // store: new Session.onEvent
}

@inline(never)
func makeCache() {
    let cache = ImageCache(), loader = ImageLoader()
    let first = Thumbnail(), second = Thumbnail()
    [cache, loader, first, second].forEach(watch)
    first.peer = second
    second.peer = first
    cache.thumbnails = [first, second]
    cache.loader = loader
    loader.cache = cache  // store: cache ImageLoader.cache
}

makeScreen()
if mode == .new { makeSession() }
if mode == .cache { makeCache() }
finish(expectingAlive: [Mode.old: 2, .new: 3, .cache: 6, .fixed: 0][mode]!)
