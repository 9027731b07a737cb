/// Finds the node of an object by its address, and the record of a node, over the walk's records
/// without a copy of their addresses.
///
/// Nodes are the records that hold a live object, numbered in record order: a record the walk skipped
/// (deinitializing, immortal) has no node, and the nodes after it shift down by one. Skipped records are
/// rare, so only their positions are kept. The recorder's snapshot is sorted by address, so a lookup is a
/// binary search over the records themselves: no hashing, nothing allocated per object. Unsorted input
/// (hand-made records in tests) falls back to a dictionary.
struct AddressIndex {
    /// The number of records.
    private let count: Int
    /// The positions of the records that are no node, ascending.
    private let skipped: [Int]
    /// Record position by address, when the records are not sorted by address.
    private let dictionary: [UInt: Int]?
    /// The records' addresses, ascending, when the caller handed them over as a buffer (the recorder's
    /// frozen snapshot): searched directly, no closure call per step. Valid while that buffer is.
    private let sorted: UnsafeBufferPointer<UInt>?

    /// Indexes `count` records whose `i`-th object is at `address(i)`, of which those at the positions
    /// `skipped` (ascending) are no node.
    ///
    /// - Complexity: O(*n*) (plus building a dictionary when the addresses are not ascending).
    init(count: Int, skipped: [Int], address: (Int) -> UInt, sorted buffer: UnsafeBufferPointer<UInt>? = nil) {
        self.count = count
        self.skipped = skipped
        var ascending = true
        var previous: UInt = 0
        for position in 0..<count {
            let current = address(position)
            if position > 0, previous >= current {
                ascending = false
                break
            }
            previous = current
        }
        if ascending {
            dictionary = nil
            sorted = buffer.flatMap { $0.count == count ? $0 : nil }
        } else {
            sorted = nil
            var positions: [UInt: Int] = [:]
            positions.reserveCapacity(count)
            for position in 0..<count { positions[address(position)] = position }
            dictionary = positions
        }
    }

    /// The node of the object at `target`, or `nil` when no live recorded object starts there.
    ///
    /// - Complexity: O(log *n*).
    func node(at target: UInt, address: (Int) -> UInt) -> Int? {
        let position: Int
        if let sorted {
            guard let found = Self.position(of: target, in: sorted) else { return nil }
            position = found
        } else if let dictionary {
            guard let known = dictionary[target] else { return nil }
            position = known
        } else {
            let low = partitionPoint(count) { address($0) < target }
            guard low < count, address(low) == target else { return nil }
            position = low
        }
        if skipped.isEmpty { return position }
        // The number of skipped records before `position`, and whether `position` is one of them.
        let low = partitionPoint(skipped.count) { skipped[$0] < position }
        if low < skipped.count, skipped[low] == position { return nil }
        return position - low
    }

    /// ``node(at:address:)`` for an index that holds its addresses (``address(ofNode:)`` is not `nil`),
    /// searching outward from record position `hint` first: a reference usually points near the object
    /// that holds it (objects made together sit together), so a gallop from there touches a few cache
    /// lines where a binary search of millions of addresses touches twenty.
    ///
    /// - Complexity: O(log *d*) for a target *d* records away from `hint`.
    @inline(__always)
    func node(at target: UInt, near hint: Int) -> Int? {
        guard let sorted, !sorted.isEmpty else { return nil }
        let last = sorted.count - 1
        var low: Int
        var high: Int
        let start = min(max(hint, 0), last)
        if sorted[start] < target {
            // Gallop up: sorted[low] < target, then find the first step at or past it.
            low = start
            var step = 1
            high = start &+ 1
            while high <= last, sorted[high] < target {
                low = high
                step &<<= 1
                high = low &+ step
            }
            low &+= 1
            high = min(high, last &+ 1)
        } else {
            // Gallop down: target <= sorted[high].
            high = start
            var step = 1
            low = start &- 1
            while low >= 0, sorted[low] >= target {
                high = low
                step &<<= 1
                low = high &- step
            }
            low = max(low &+ 1, 0)
        }
        // The first position in low ..< high whose address is at least target (high if none).
        while low < high {
            let middle = (low &+ high) &>> 1
            if sorted[middle] < target {
                low = middle &+ 1
            } else {
                high = middle
            }
        }
        guard low <= last, sorted[low] == target else { return nil }
        if skipped.isEmpty { return low }
        let before = partitionPoint(skipped.count) { skipped[$0] < low }
        if before < skipped.count, skipped[before] == low { return nil }
        return low - before
    }

    /// The position of `target` in the ascending `addresses`, or `nil`.
    @inline(__always)
    private static func position(of target: UInt, in addresses: UnsafeBufferPointer<UInt>) -> Int? {
        var low = 0
        var high = addresses.count
        while low < high {
            let middle = (low &+ high) &>> 1
            if addresses[middle] < target {
                low = middle &+ 1
            } else {
                high = middle
            }
        }
        return low < addresses.count && addresses[low] == target ? low : nil
    }

    /// Whether the index holds the records' addresses (``node(at:near:)`` and ``address(ofNode:)`` work).
    var holdsAddresses: Bool { sorted != nil }

    /// The address of `node`'s record, when the index holds the addresses (else `nil`).
    @inline(__always)
    func address(ofNode node: Int) -> UInt? {
        guard let sorted else { return nil }
        return sorted[skipped.isEmpty ? node : recordPosition(ofNode: node)]
    }

    /// The record position of `node`.
    ///
    /// - Complexity: O(log *s*) for *s* skipped records.
    func recordPosition(ofNode node: Int) -> Int {
        // `skipped[j] - j` (the nodes before the j-th skipped record) never decreases: count the skipped
        // records that come before node `node`'s record.
        node + partitionPoint(skipped.count) { skipped[$0] - $0 <= node }
    }
}
