// Rows 13–14 of LEAK-PATTERNS: a closure that creates and stores another closure capturing self.
// - Player.onStart = { [weak self] in guard let self; self.onStop = { self.stopped(); speaker.mute() } } —
//   the outer closure only holds self weakly, but the inner closure it stores captures self (strongly) and a
//   Speaker: Player → inner context → Player.
// - Timer.arm() stores `schedule = { self.fire = { self.count += 1 } }` — both closures capture only self, so
//   both contexts are the Timer itself: two self-references.
// leak: 6 leaked objects — 2 root cycles {Player, inner closure context} holding the outer closure's context,
// its `[weak self]` box and the Speaker; and {Timer}.
// fixed: the inner closures capture `[weak self]` and a global keeps the owners alive — nothing leaks.

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

/// In the fixed variant the shapes stay alive, held by this global: a live closure must not look leaked.
var keptAlive: [AnyObject] = []

final class Speaker {
    var muted = false
    func mute() { muted = true }
}

final class Player {
    var stops = 0
    var onStart: (() -> Void)?
    var onStop: (() -> Void)?

    func stopped() { stops += 1 }

    func install(speaker: Speaker, weakInner: Bool) {
        onStart = { [weak self] in
            guard let self else { return }
            if weakInner {
                self.onStop = { [weak self] in
                    self?.stopped()
                    speaker.mute()
                }
            } else {
                self.onStop = {
                    self.stopped()
                    speaker.mute()
                }
            }
        }
    }
}

final class Timer {
    var count = 0
    var schedule: (() -> Void)?
    var fire: (() -> Void)?

    func arm(weakly: Bool) {
        if weakly {
            schedule = { [weak self] in self?.fire = { [weak self] in self?.count += 1 } }
        } else {
            schedule = { self.fire = { self.count += 1 } }
        }
    }
}

@inline(never)
func makePlayer() {
    let player = Player()
    let speaker = Speaker()
    watch(player)
    watch(speaker)
    player.install(speaker: speaker, weakInner: mode == .fixed)
    player.onStart?()
    if mode == .fixed { keptAlive.append(player) }
    if checking { player.onStop?() }
}

@inline(never)
func makeTimer() {
    let timer = Timer()
    watch(timer)
    timer.arm(weakly: mode == .fixed)
    timer.schedule?()
    if mode == .fixed { keptAlive.append(timer) }
    if checking { timer.fire?() }
}

makePlayer()
makeTimer()
finish(expectingAlive: 3)
