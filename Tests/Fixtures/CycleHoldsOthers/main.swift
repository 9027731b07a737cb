// Objects held by a cycle but not in it are reported as leaked and grouped under their root cycle.
// Session ⇄ Connection is the root cycle. The session holds a Logger (which holds a Buffer) and a
// Cache ⇄ CacheEntry cycle (a cycle, but not a root: the session points into it); the connection holds
// an array of three Packets.
// leak: 10 leaked objects — 1 root cycle {Session, Connection} holding Logger, Buffer, Cache, CacheEntry,
// the array storage and 3 Packets.
// fixed: the back references (connection → session, entry → cache) are `weak` — nothing leaks.

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

final class Session {
    var connection: Connection?
    var logger: Logger?
    var cache: Cache?
}

final class Connection {
    var session: Session?
    weak var weakSession: Session?
    var packets: [Packet] = []
}

final class Logger {
    var buffer: Buffer?
}

final class Buffer {
    var bytes = 0
}

final class Packet {
    var size: Int

    init(size: Int) {
        self.size = size
    }
}

final class Cache {
    var entry: CacheEntry?
}

final class CacheEntry {
    var cache: Cache?
    weak var weakCache: Cache?
}

@inline(never)
func makeSession() {
    let session = Session(), connection = Connection(), logger = Logger(), buffer = Buffer()
    let cache = Cache(), entry = CacheEntry()
    [session, connection, logger, buffer, cache, entry].forEach(watch)
    logger.buffer = buffer
    session.logger = logger
    cache.entry = entry
    session.cache = cache
    session.connection = connection
    for size in [64, 128, 256] {
        let packet = Packet(size: size)
        watch(packet)
        connection.packets.append(packet)
    }
    switch mode {
    case .leak:
        connection.session = session
        entry.cache = cache
    case .fixed:
        connection.weakSession = session
        entry.weakCache = cache
    }
}

makeSession()
finish(expectingAlive: mode == .leak ? 9 : 0)
