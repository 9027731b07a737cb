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

    /// Indexes `count` records whose `i`-th object is at `address(i)`, of which those at the positions
    /// `skipped` (ascending) are no node.
    ///
    /// - Complexity: O(*n*) (plus building a dictionary when the addresses are not ascending).
    init(count: Int, skipped: [Int], address: (Int) -> UInt) {
        self.count = count
        self.skipped = skipped
        var ascending = true
        var previous: UInt = 0
        for position in 0 ..< count {
            let current = address(position)
            if position > 0, previous >= current {
                ascending = false
                break
            }
            previous = current
        }
        if ascending {
            dictionary = nil
        } else {
            var positions: [UInt: Int] = [:]
            positions.reserveCapacity(count)
            for position in 0 ..< count { positions[address(position)] = position }
            dictionary = positions
        }
    }

    /// The node of the object at `target`, or `nil` when no live recorded object starts there.
    ///
    /// - Complexity: O(log *n*).
    func node(at target: UInt, address: (Int) -> UInt) -> Int? {
        let position: Int
        if let dictionary {
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

    /// The record position of `node`.
    ///
    /// - Complexity: O(log *s*) for *s* skipped records.
    func recordPosition(ofNode node: Int) -> Int {
        // `skipped[j] - j` (the nodes before the j-th skipped record) never decreases: count the skipped
        // records that come before node `node`'s record.
        node + partitionPoint(skipped.count) { skipped[$0] - $0 <= node }
    }
}
