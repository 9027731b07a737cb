/// Finds the node of an object by its address: the position of the address among the live objects'.
///
/// The recorder's snapshot is sorted by address, so the addresses usually come sorted and lookups are a
/// binary search over one contiguous array: no hashing, no per-object allocation. Unsorted input (hand-made
/// records in tests) falls back to a dictionary.
struct AddressIndex {
    private let sorted: [UInt]
    private let dictionary: [UInt: Int]?

    /// Indexes `addresses`, where `addresses[i]` is the address of node `i`.
    init(_ addresses: [UInt]) {
        var ascending = true
        for position in addresses.indices.dropFirst() where addresses[position - 1] >= addresses[position] {
            ascending = false
            break
        }
        if ascending {
            sorted = addresses
            dictionary = nil
        } else {
            sorted = []
            var positions: [UInt: Int] = [:]
            positions.reserveCapacity(addresses.count)
            for (position, address) in addresses.enumerated() { positions[address] = position }
            dictionary = positions
        }
    }

    /// The node of the object at `address`, or `nil` when no live recorded object starts there.
    ///
    /// - Complexity: O(log *n*).
    func position(of address: UInt) -> Int? {
        if let dictionary { return dictionary[address] }
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < address {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < sorted.count && sorted[low] == address ? low : nil
    }
}
