// Objects held by a cycle but not in it are reported as leaked and grouped under their root cycle.
// Session ⇄ Connection is the root cycle. The session holds a Logger (which holds a Buffer) and a
// Cache ⇄ CacheEntry cycle (a cycle, but not a root: the session points into it); the connection holds
// an array of three Packets.
// leak: 10 leaked objects — 1 root cycle {Session, Connection} holding Logger, Buffer, Cache, CacheEntry,
// the array storage and 3 Packets.
// fixed: the back references (connection → session, entry → cache) are `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
        connection.session = session  // store: leak Connection.session
        entry.cache = cache
    case .fixed:
        connection.weakSession = session
        entry.weakCache = cache
    }
}

makeSession()
finish(expectingAlive: mode == .leak ? 9 : 0)
