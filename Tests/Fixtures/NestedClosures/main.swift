// A closure that creates and stores another closure capturing self.
// - Player.onStart = { [weak self] in guard let self; self.onStop = { self.stopped(); speaker.mute() } } —
//   the outer closure only holds self weakly, but the inner closure it stores captures self (strongly) and a
//   Speaker: Player → inner context → Player.
// - Timer.arm() stores `schedule = { self.fire = { self.count += 1 } }` — both closures capture only self, so
//   both contexts are the Timer itself: two self-references.
// leak: 6 leaked objects — 2 root cycles {Player, inner closure context} holding the outer closure's context,
// its `[weak self]` box and the Speaker; and {Timer}.
// fixed: the inner closures capture `[weak self]` and a global keeps the owners alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
