// Closures stored in collections.
// - Bus.handlers: [String: () -> Void] with handlers["tap"] = { self.count += 1 } — the dictionary storage
//   holds the closure, whose context is the Bus (or a reabstraction thunk's context wrapping it).
// - Queue.tasks: [() -> Void] = [{ self.run(1) }, { self.run(2) }].
// - Router.routes: [Int: (String) -> Bool] with a closure capturing self and a Logger.
// - Inbox.items: [Any] = [{ self.count += 1 }] — a closure inside `Any` is stored reabstracted: a thunk
//   whose context holds the original closure.
// leak: 11 leaked objects — 4 root cycles {Bus, dictionary storage}, {Queue, array storage},
// {Router, dictionary storage, closure context} holding the Logger, {Inbox, array storage, thunk context}.
// fixed: `[weak self]` and a global keeps the owners alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live closure must not look leaked.
var keptAlive: [AnyObject] = []

final class Bus {
    var count = 0
    var handlers: [String: () -> Void] = [:]
}

final class Queue {
    var done = 0
    var tasks: [() -> Void] = []

    func run(_ step: Int) { done += step }
}

final class Logger {
    func log(_ text: String) -> Bool { !text.isEmpty }
}

final class Router {
    var hits = 0
    var routes: [Int: (String) -> Bool] = [:]
}

final class Inbox {
    var count = 0
    var items: [Any] = []
}

@inline(never)
func makeBus() {
    let bus = Bus()
    watch(bus)
    switch mode {
    case .leak: bus.handlers["tap"] = { bus.count += 1 }
    case .fixed:
        bus.handlers["tap"] = { [weak bus] in bus?.count += 1 }
        keptAlive.append(bus)
    }
    if checking { bus.handlers["tap"]?() }
}

@inline(never)
func makeQueue() {
    let queue = Queue()
    watch(queue)
    switch mode {
    case .leak: queue.tasks = [{ queue.run(1) }, { queue.run(2) }]
    case .fixed:
        queue.tasks = [{ [weak queue] in queue?.run(1) }, { [weak queue] in queue?.run(2) }]
        keptAlive.append(queue)
    }
    if checking { queue.tasks.forEach { $0() } }
}

@inline(never)
func makeRouter() {
    let router = Router()
    let logger = Logger()
    watch(router)
    watch(logger)
    switch mode {
    case .leak:
        router.routes[404] = { path in
            router.hits += 1
            return logger.log(path)
        }
    case .fixed:
        router.routes[404] = { [weak router] path in
            router?.hits += 1
            return logger.log(path)
        }
        keptAlive.append(router)
    }
    if checking { _ = router.routes[404]?("/missing") }
}

@inline(never)
func makeInbox() {
    let inbox = Inbox()
    watch(inbox)
    switch mode {
    case .leak: inbox.items = [{ inbox.count += 1 } as () -> Void]
    case .fixed:
        inbox.items = [{ [weak inbox] in inbox?.count += 1 } as () -> Void]
        keptAlive.append(inbox)
    }
    if checking, let item = inbox.items.first as? () -> Void { item() }
}

makeBus()
makeQueue()
makeRouter()
makeInbox()
finish(expectingAlive: 5)
