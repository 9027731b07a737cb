/// Each node's plan (an index into ``HeapScan``'s plans), in 16 bits while the walk has met fewer than
/// 65,535 plans — every heap seen so far — and in 32 bits past that: 2 bytes per live object instead of 4.
struct PlanIDs {
    private var narrow: [UInt16] = []
    private var wide: [UInt32]?

    /// The number of nodes.
    var count: Int { wide?.count ?? narrow.count }

    /// Reserves room for `capacity` nodes.
    mutating func reserveCapacity(_ capacity: Int) {
        narrow.reserveCapacity(capacity)
    }

    /// Appends the next node's plan id.
    mutating func append(_ id: UInt32) {
        if wide == nil, id < UInt32(UInt16.max) {
            narrow.append(UInt16(id))
            return
        }
        if wide == nil {
            wide = narrow.map(UInt32.init)
            narrow = []
        }
        wide!.append(id)
    }

    /// The plan id of `node`.
    subscript(node: Int) -> UInt32 {
        if let wide { return wide[node] }
        return UInt32(narrow[node])
    }
}
