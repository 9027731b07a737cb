// One closure capturing several values of mixed ownership.
// - Session.onEvent = { [weak audit, unowned clock, store] in self.… } — the context holds a weak Audit, an
//   unowned Clock, a strong Store and a strong self. Session also keeps the Audit and the Clock in strong
//   properties, so all of them stay alive with the cycle.
// leak: 6 leaked objects — 1 root cycle {Session, closure context} holding the box of the `[weak audit]`
// capture, the Audit, the Clock and the Store; the context's references out are strong (self, store, the
// box) and unowned (clock), the box's is weak (audit).
// fixed: `[weak self, weak audit, unowned clock, store]` and a global keeps the Session alive — nothing
// leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shape stays alive, held by this global: a live context must not look leaked.
var keptAlive: [AnyObject] = []

final class Audit {
    var entries = 0
}

final class Clock {
    var now = 100
}

final class Store {
    var saved = 0
}

final class Session {
    let audit: Audit
    let clock: Clock
    var events = 0
    var onEvent: ((Int) -> Void)?

    init(audit: Audit, clock: Clock) {
        self.audit = audit
        self.clock = clock
    }

    func installStrong(store: Store) {
        onEvent = { [weak audit, unowned clock, store] value in
            audit?.entries += 1
            store.saved = clock.now + value
            self.events += 1
        }
    }

    func installWeak(store: Store) {
        onEvent = { [weak self, weak audit, unowned clock, store] value in
            audit?.entries += 1
            store.saved = clock.now + value
            self?.events += 1
        }
    }
}

@inline(never)
func makeSession() {
    let audit = Audit()
    let clock = Clock()
    let store = Store()
    let session = Session(audit: audit, clock: clock)
    watch(audit)
    watch(clock)
    watch(store)
    watch(session)
    switch mode {
    case .leak: session.installStrong(store: store)
    case .fixed:
        session.installWeak(store: store)
        keptAlive.append(session)
    }
    if checking { session.onEvent?(1) }
}

makeSession()
finish(expectingAlive: 4)
