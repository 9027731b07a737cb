// Issue 21, items 2–4: cycles through storage that no field record describes (`Mutex`, `ManagedBuffer`
// tails, key paths, `AtomicLazyReference`), each read exactly.
//
// leak:   an `EventBus` whose `Mutex<[Subscriber]>` holds a `Subscriber` pointing back at it (its
//         `Atomic<Unmanaged<Subscriber>?>` also names that subscriber: an unmanaged reference, read but
//         never strong); an `Image` whose `AtomicLazyReference<Histogram>` holds a `Histogram` pointing
//         back at it; a `Newsroom` whose private `NotificationCenter()` holds an observer block that
//         captures the newsroom (swift-foundation keeps observers in a `Mutex`); a `ConnectionPool`
//         (ManagedBuffer, header `initializedCount`) whose two `Connection` elements point back at it;
//         a `Store` holding the key path `\Store.[store]`, whose captured argument is the store itself.
//         Besides, in both modes, a `Reporter` observed by the global `NotificationCenter.default`
//         with a block capturing it: held by the global centre, never reported.
// fixed:  the back references are `weak`, the newsroom removes its observer (`removeObserver`), and the
//         store's key path captures another store: nothing leaks.

import Foundation
import Glibc
import Synchronization

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: Mutex and Atomic

final class Subscriber: @unchecked Sendable {
    var bus: EventBus?
    weak var weakBus: EventBus?
}

final class EventBus {
    let subscribers = Mutex<[Subscriber]>([])
    let lastSubscriber = Atomic<Unmanaged<Subscriber>?>(nil)
    let deliveries = Atomic<Int>(0)
}

@inline(never)
func makeBus() -> EventBus {
    let bus = EventBus()
    let subscriber = Subscriber()
    if mode == .leak { subscriber.bus = bus } else { subscriber.weakBus = bus }  // store: leak Subscriber.bus
    bus.subscribers.withLock { $0.append(subscriber) }
    bus.lastSubscriber.store(Unmanaged.passUnretained(subscriber), ordering: .releasing)
    watch(bus)
    watch(subscriber)
    return bus
}

// MARK: AtomicLazyReference

final class Histogram {
    var image: Image?
    weak var weakImage: Image?
}

final class Image {
    let histogram = AtomicLazyReference<Histogram>()
}

@inline(never)
func makeImage() -> Image {
    let image = Image()
    let histogram = Histogram()
    if mode == .leak { histogram.image = image } else { histogram.weakImage = image }  // store: leak Histogram.image
    _ = image.histogram.storeIfNil(histogram)
    watch(image)
    watch(histogram)
    return image
}

// MARK: A private NotificationCenter, and the global one

final class Newsroom: @unchecked Sendable {
    let center = NotificationCenter()
    var received = 0
    var token: (any NSObjectProtocol)?
}

final class Reporter: @unchecked Sendable {
    var received = 0
}

let headline = Notification.Name("headline")

@inline(never)
func makeNewsroom() -> Newsroom {
    let newsroom = Newsroom()
    newsroom.token = newsroom.center.addObserver(forName: headline, object: nil, queue: nil) { [newsroom] _ in
        newsroom.received += 1
    }
    newsroom.center.post(name: headline, object: nil)
    if mode == .fixed, let token = newsroom.token { newsroom.center.removeObserver(token) }
    watch(newsroom)
    return newsroom
}

@inline(never)
func makeReporter() -> Reporter {
    let reporter = Reporter()
    _ = NotificationCenter.default.addObserver(forName: headline, object: nil, queue: nil) { [reporter] _ in
        reporter.received += 1
    }
    return reporter
}

// MARK: A ManagedBuffer pool that declares its count

struct PoolHeader {
    var initializedCount: Int
}

final class Connection {
    var pool: ConnectionPool?
    weak var weakPool: ConnectionPool?
}

final class ConnectionPool: ManagedBuffer<PoolHeader, Connection> {
    deinit {
        withUnsafeMutablePointers { header, elements in _ = elements.deinitialize(count: header.pointee.initializedCount) }
    }
}

@inline(never)
func makePool() -> ConnectionPool {
    let pool = ConnectionPool.create(minimumCapacity: 4) { _ in PoolHeader(initializedCount: 0) } as! ConnectionPool
    pool.withUnsafeMutablePointers { header, elements in
        for index in 0..<2 {
            let connection = Connection()
            if mode == .leak { connection.pool = pool } else { connection.weakPool = pool }  // store: leak Connection.pool
            (elements + index).initialize(to: connection)
            header.pointee.initializedCount += 1
            watch(connection)
        }
    }
    watch(pool)
    return pool
}

// MARK: A key path with a captured argument

final class Store: Hashable {
    var path: AnyKeyPath?
    subscript(key: Store) -> Int { key === self ? 1 : 0 }
    static func == (lhs: Store, rhs: Store) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

@inline(never)
func makeStore() -> Store {
    let store = Store()
    store.path = mode == .leak ? \Store.[store] : \Store.[Store()]
    watch(store)
    return store
}

@inline(never)
func escape(_ objects: [AnyObject]) -> Int {
    objects.count
}

let made = escape([makeBus(), makeImage(), makeNewsroom(), makePool(), makeStore()])
let reporter = escape([makeReporter()])
finish(expectingAlive: mode == .leak ? 9 : 0)
exit(made == 5 && reporter == 1 ? 0 : 1)
