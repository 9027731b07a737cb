// Actors (default-actor storage before the stored properties).
// - Client.store = Store(client: client) — an actor ⇄ class cycle: Store.client → Client.
// - Ledger (an actor) keeps `onChange: (() -> Void)?` = a closure capturing the Ledger and an Auditor,
//   installed from its synchronous initializer.
// leak: 5 leaked objects — 2 root cycles {Client, Store} and {Ledger, closure context} holding the Auditor.
// fixed: the actor's back references are `weak` (`[weak self]` for the closure) and a global keeps the
// shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live actor must not look leaked.
var keptAlive: [AnyObject] = []

final class Client {
    var name = "client"
    var store: Store?
}

actor Store {
    var count = 0
    let client: Client?
    weak var weakClient: Client?

    init(client: Client, strongly: Bool) {
        if strongly {
            self.client = client
        } else {
            self.client = nil
            self.weakClient = client
        }
    }
}

final class Auditor {
    var checks = 0
}

actor Ledger {
    var total = 0
    nonisolated(unsafe) var onChange: (() -> Void)?

    init(auditor: Auditor, strongly: Bool) {
        if strongly {
            onChange = { [self] in
                auditor.checks += 1
                _ = self
            }
        } else {
            onChange = { [weak self] in
                auditor.checks += 1
                _ = self
            }
        }
    }
}

@inline(never)
func makeStore() {
    let client = Client()
    let store = Store(client: client, strongly: mode == .leak)
    watch(client)
    watch(store)
    client.store = store
    if mode == .fixed { keptAlive.append(client) }
}

@inline(never)
func makeLedger() {
    let auditor = Auditor()
    let ledger = Ledger(auditor: auditor, strongly: mode == .leak)
    watch(auditor)
    watch(ledger)
    if mode == .fixed { keptAlive.append(ledger) }
    if checking { ledger.onChange?() }
}

makeStore()
makeLedger()
finish(expectingAlive: 4)
