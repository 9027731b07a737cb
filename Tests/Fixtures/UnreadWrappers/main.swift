// Issue 12, item 5: layouts no metadata describes, named in the diagnostics instead of missed silently.
//
// - A struct of the program's own that is not `Copyable` (`SubscriberList`): reflection hides a field's
//   type that is not `Copyable`, and LeakGraph reads only the ones it knows (Synchronization's).
// - `ManagedBuffer` tail elements: how many are initialized only the program knows.
// - A key path whose captured subscript argument has a private type (`\Store.[Ticket(store)]`): argument
//   types are named only by a thunk's symbol, and a private type's name does not resolve on its own.
//
// leak:   an `EventBus` whose list holds a `Subscriber` pointing back at it; a `Pool` (ManagedBuffer)
//         whose two `Slot` elements point back at it; a `Store` holding `\Store.[ticket]` whose ticket holds the store. Each is a real
//         cycle the walk cannot see: no leak is reported (the unread references make their targets
//         externally held), and the report names each layout: `EventBus` `subscribers`, `Pool`'s
//         elements, the key path — one object each.
// fixed:  the back references are `weak`, and the store's ticket holds another store: nothing
//         leaks; the same three layouts are named. (The pool's `deinit` releases its elements: a first
//         version of this fixture had none, and the orphan scan found its slots leaked.)

import Glibc
import Synchronization

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

final class Subscriber {
    var bus: EventBus?
    weak var weakBus: EventBus?
}

struct SubscriberList: ~Copyable { var all: [Subscriber] = [] }  // one line: sites keep their lines
final class EventBus { var subscribers = SubscriberList() }


final class Slot {
    var pool: Pool?
    weak var weakPool: Pool?
}

final class Pool: ManagedBuffer<Int, Slot> {
    // ManagedBuffer leaves its elements to the subclass: without this, a freed pool would leave its
    // slots retained by nothing (orphans, which `leakgraph run`'s orphan scan reports).
    deinit {
        withUnsafeMutablePointers { count, elements in _ = elements.deinitialize(count: count.pointee) }
    }
}

final class Store {
    var path: AnyKeyPath?
    fileprivate subscript(ticket: Ticket) -> Int { ticket.store === self ? 1 : 0 }
}

private final class Ticket: Hashable {
    let store: Store
    init(_ store: Store) { self.store = store }
    static func == (lhs: Ticket, rhs: Ticket) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

@inline(never)
func makeBus() -> EventBus {
    let bus = EventBus()
    let subscriber = Subscriber()
    if mode == .leak { subscriber.bus = bus } else { subscriber.weakBus = bus }  // store: leak Subscriber.bus
    bus.subscribers.all.append(subscriber)
    watch(bus)
    return bus
}

@inline(never)
func makePool() -> Pool {
    let pool = Pool.create(minimumCapacity: 2) { _ in 2 } as! Pool
    pool.withUnsafeMutablePointers { _, elements in
        for index in 0..<2 {
            let slot = Slot()
            if mode == .leak { slot.pool = pool } else { slot.weakPool = pool }
            (elements + index).initialize(to: slot)
        }
    }
    watch(pool)
    return pool
}

@inline(never)
func makeStore() -> Store {
    let store = Store()
    store.path = \Store.[Ticket(mode == .leak ? store : Store())]
    watch(store)
    return store
}

@inline(never)
func escape(_ objects: [AnyObject]) -> Int {
    objects.count
}

let made = escape([makeBus(), makePool(), makeStore()])
finish(expectingAlive: mode == .leak ? 3 : 0)
exit(made == 3 ? 0 : 1)
