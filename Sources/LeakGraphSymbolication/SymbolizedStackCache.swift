import Synchronization

/// Symbolized creation stacks kept from one leak check to the next, by stack id, so that a periodic
/// check symbolizes only the stacks no earlier check did.
///
/// A leak stays leaked: a monitor checking every few seconds finds the same leaked objects, made at
/// the same few call sites, again and again. Their stacks are interned by the recorder (an id names
/// one stack for the life of the process), so a stack id symbolized once never needs it again.
///
/// ```swift
/// let cache = SymbolizedStackCache(capacity: 4096)
/// let frames = cache.frames(ofStack: id) { symbolizer.symbolizeExpandingInlines(addresses) }
/// ```
///
/// Bounded: past ``capacity`` stacks, the quarter used longest ago is dropped (and symbolized again
/// if a later check needs it). Thread-safe; the resolving closure runs outside the lock.
public final class SymbolizedStackCache: Sendable {
    /// What the cache has done since it was made.
    public struct Statistics: Sendable, Hashable {
        /// Lookups answered from the cache.
        public var hits = 0
        /// Lookups that called the resolving closure.
        public var misses = 0
        /// Stacks dropped to stay within the capacity.
        public var evictions = 0
        /// Stacks held now.
        public var count = 0
    }

    private struct Entry {
        var frames: [SymbolizedFrame]
        var lastUse: UInt64
    }

    private struct Storage {
        var entries: [UInt32: Entry] = [:]
        var uses: UInt64 = 0
        var statistics = Statistics()
    }

    /// The most stacks kept (at least 1).
    public let capacity: Int
    private let storage = Mutex(Storage())

    /// An empty cache of at most `capacity` stacks.
    public init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// The frames of stack `id`: from the cache, or from `resolve`, kept when it gives frames.
    ///
    /// `resolve` returns `nil` when the stack cannot be symbolized now (no symbolizer): nothing is
    /// kept, and the next lookup calls it again.
    ///
    /// - Complexity: O(1) for a hit; amortized O(log *capacity*) for a miss that fills the cache.
    public func frames(ofStack id: UInt32, resolve: () -> [SymbolizedFrame]?) -> [SymbolizedFrame]? {
        let cached = storage.withLock { storage -> [SymbolizedFrame]? in
            storage.uses += 1
            guard let entry = storage.entries[id] else {
                storage.statistics.misses += 1
                return nil
            }
            storage.entries[id]?.lastUse = storage.uses
            storage.statistics.hits += 1
            return entry.frames
        }
        if let cached { return cached }
        guard let frames = resolve() else { return nil }
        storage.withLock { storage in
            storage.uses += 1
            storage.entries[id] = Entry(frames: frames, lastUse: storage.uses)
            if storage.entries.count > capacity {
                evictLeastRecentlyUsed(&storage)
            }
            storage.statistics.count = storage.entries.count
        }
        return frames
    }

    /// Whether stack `id` is cached (a lookup that does not count as a use).
    public func contains(stack id: UInt32) -> Bool {
        storage.withLock { $0.entries[id] != nil }
    }

    /// Hits, misses, evictions and the stacks held.
    public var statistics: Statistics {
        storage.withLock { $0.statistics }
    }

    /// Drops the quarter of the entries (at least one) used longest ago.
    private func evictLeastRecentlyUsed(_ storage: inout Storage) {
        let dropped = max(1, storage.entries.count - capacity + capacity / 4)
        let oldest = storage.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(dropped)
        for (id, _) in oldest {
            storage.entries[id] = nil
        }
        storage.statistics.evictions += oldest.count
    }
}
