import LeakGraphSymbolication
import Synchronization
import Testing

/// The cache periodic leak checks keep symbolized creation stacks in: each stack resolved once while
/// kept, bounded by dropping the stacks used longest ago.
@Suite("Symbolized stack cache")
struct SymbolizedStackCacheTests {
    /// A resolver that counts its calls per stack id and answers one frame naming the id.
    final class CountingResolver: Sendable {
        let calls = Mutex<[UInt32: Int]>([:])

        func resolve(_ id: UInt32) -> [SymbolizedFrame] {
            calls.withLock { $0[id, default: 0] += 1 }
            return [SymbolizedFrame(address: UInt(id), function: "make\(id)()", file: "/src/App/main.swift", line: Int(id))]
        }

        func count(_ id: UInt32) -> Int { calls.withLock { $0[id] ?? 0 } }
    }

    @Test("a stack is resolved once; later lookups give the same frames from the cache")
    func resolvedOnce() {
        let cache = SymbolizedStackCache(capacity: 8)
        let resolver = CountingResolver()
        var seen: [[SymbolizedFrame]?] = []
        // Three checks that find the same two stacks leaked.
        for _ in 0..<3 {
            for id: UInt32 in [7, 9] {
                seen.append(cache.frames(ofStack: id) { resolver.resolve(id) })
            }
        }
        #expect(resolver.count(7) == 1)
        #expect(resolver.count(9) == 1)
        #expect(seen[4] == seen[0])
        #expect(seen[4]?.first?.function == "make7()")
        #expect(seen[5]?.first?.line == 9)
        let statistics = cache.statistics
        #expect(statistics.hits == 4)
        #expect(statistics.misses == 2)
        #expect(statistics.evictions == 0)
        #expect(statistics.count == 2)
    }

    @Test("a stack that cannot be symbolized now is not kept: the next lookup tries again")
    func failureNotKept() {
        let cache = SymbolizedStackCache()
        let attempts = Mutex(0)
        let first = cache.frames(ofStack: 3) {
            attempts.withLock { $0 += 1 }
            return nil
        }
        #expect(first == nil)
        #expect(!cache.contains(stack: 3))
        let second = cache.frames(ofStack: 3) {
            attempts.withLock { $0 += 1 }
            return [SymbolizedFrame.unknown(0x30)]
        }
        #expect(second == [SymbolizedFrame.unknown(0x30)])
        #expect(attempts.withLock { $0 } == 2)
        #expect(cache.contains(stack: 3))
    }

    @Test("bounded: past the capacity the stacks used longest ago are dropped, recently used ones kept")
    func bounded() {
        let cache = SymbolizedStackCache(capacity: 4)
        let resolver = CountingResolver()
        for id: UInt32 in 1...4 {
            _ = cache.frames(ofStack: id) { resolver.resolve(id) }
        }
        // Stack 1 is used again: stack 2 is now the one used longest ago.
        _ = cache.frames(ofStack: 1) { resolver.resolve(1) }
        _ = cache.frames(ofStack: 5) { resolver.resolve(5) }
        #expect(cache.statistics.count <= 4)
        #expect(cache.statistics.evictions >= 1)
        #expect(!cache.contains(stack: 2), "the least recently used stack is dropped")
        #expect(cache.contains(stack: 1))
        #expect(cache.contains(stack: 5))
        // A dropped stack is resolved again when a later check needs it.
        _ = cache.frames(ofStack: 2) { resolver.resolve(2) }
        #expect(resolver.count(2) == 2)
        #expect(resolver.count(1) == 1)

        for id: UInt32 in 100..<1000 {
            _ = cache.frames(ofStack: id) { resolver.resolve(id) }
            #expect(cache.statistics.count <= 4)
        }
    }
}
