// A generic function creates a closure capturing a value of its generic type T
// and self; the closure's context is generic (it stores T's metadata as a binding before the captures).
// - Scheduler.schedule(_: T) appends `{ self.run(value) }` to `jobs`, called with a Token (a class) and
//   with a Ticket (a struct holding a Token).
// - Mailbox<Message>.subscribe() stores `{ self.deliver(message) }` in `listener` (generic class, generic
//   capture).
// leak: 9 leaked objects — 2 root cycles {Scheduler, array storage, 2 closure contexts} holding 2 Tokens,
// and {Mailbox<Token>, closure context} holding a Token.
// fixed: `[weak self]` and a global keeps the owners alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live context must not look leaked.
var keptAlive: [AnyObject] = []

final class Token {
    var uses = 0
}

struct Ticket {
    var number: Int
    var token: Token
}

final class Scheduler {
    var ran = 0
    var jobs: [() -> Void] = []

    func run<T>(_ value: T) { ran += 1 }

    @inline(never)
    func schedule<T>(_ value: T, weakly: Bool) {
        if weakly {
            jobs.append { [weak self] in self?.run(value) }
        } else {
            jobs.append { self.run(value) }
        }
    }
}

final class Mailbox<Message> {
    let message: Message?
    var delivered = 0
    var listener: (() -> Void)?

    init() {
        message = nil
    }

    func deliver(_ message: Message) { delivered += 1 }

    @inline(never)
    func subscribe(_ message: Message, weakly: Bool) {
        if weakly {
            listener = { [weak self] in self?.deliver(message) }
        } else {
            listener = { self.deliver(message) }
        }
    }
}

@inline(never)
func makeScheduler() {
    let scheduler = Scheduler()
    let first = Token()
    let second = Token()
    watch(scheduler)
    watch(first)
    watch(second)
    scheduler.schedule(first, weakly: mode == .fixed)
    scheduler.schedule(Ticket(number: 2, token: second), weakly: mode == .fixed)
    if mode == .fixed { keptAlive.append(scheduler) }
    if checking { scheduler.jobs.forEach { $0() } }
}

@inline(never)
func makeMailbox() {
    let mailbox = Mailbox<Token>()
    let token = Token()
    watch(mailbox)
    watch(token)
    mailbox.subscribe(token, weakly: mode == .fixed)
    if mode == .fixed { keptAlive.append(mailbox) }
    if checking { mailbox.listener?() }
}

makeScheduler()
makeMailbox()
finish(expectingAlive: 5)
