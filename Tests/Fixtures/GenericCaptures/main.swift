// Rows 14–15 of LEAK-PATTERNS: a generic function creates a closure capturing a value of its generic type T
// and self; the closure's context is generic (it stores T's metadata as a binding before the captures).
// - Scheduler.schedule(_: T) appends `{ self.run(value) }` to `jobs`, called with a Token (a class) and
//   with a Ticket (a struct holding a Token).
// - Mailbox<Message>.subscribe() stores `{ self.deliver(message) }` in `listener` (generic class, generic
//   capture).
// leak: 9 leaked objects — 2 root cycles {Scheduler, array storage, 2 closure contexts} holding 2 Tokens,
// and {Mailbox<Token>, closure context} holding a Token.
// fixed: `[weak self]` and a global keeps the owners alive — nothing leaks.

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
