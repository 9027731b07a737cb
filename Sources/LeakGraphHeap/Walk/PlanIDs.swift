/// Each node's plan (an index into ``HeapScan``'s plans) in as few bytes as the walk's plans need: 8 bits
/// while it has met fewer than 255 plans (a test, a command-line tool), 16 bits below 65,535 (every heap
/// seen so far), 32 bits past that — 1 or 2 bytes per live object instead of 4. A wider id widens every
/// id already stored, once.
struct PlanIDs {
    private var tiny: [UInt8] = []
    private var narrow: [UInt16]?
    private var wide: [UInt32]?
    /// What ``reserveCapacity(_:)`` asked for, kept for the wider array a widening makes.
    private var capacity = 0

    /// The number of nodes.
    var count: Int { wide?.count ?? narrow?.count ?? tiny.count }

    /// Reserves room for `capacity` nodes.
    mutating func reserveCapacity(_ capacity: Int) {
        self.capacity = capacity
        if wide != nil {
            wide!.reserveCapacity(capacity)
        } else if narrow != nil {
            narrow!.reserveCapacity(capacity)
        } else {
            tiny.reserveCapacity(capacity)
        }
    }

    /// Appends the next node's plan id.
    mutating func append(_ id: UInt32) {
        if wide == nil, narrow == nil, id < UInt32(UInt8.max) {
            tiny.append(UInt8(id))
            return
        }
        if wide == nil, id < UInt32(UInt16.max) {
            if narrow == nil {
                var widened = [UInt16]()
                widened.reserveCapacity(Swift.max(capacity, tiny.count + 1))
                widened.append(contentsOf: tiny.lazy.map(UInt16.init))
                narrow = widened
                tiny = []
            }
            narrow!.append(UInt16(id))
            return
        }
        if wide == nil {
            var widened = [UInt32]()
            widened.reserveCapacity(Swift.max(capacity, count + 1))
            if let narrow {
                widened.append(contentsOf: narrow.lazy.map(UInt32.init))
            } else {
                widened.append(contentsOf: tiny.lazy.map(UInt32.init))
            }
            wide = widened
            narrow = nil
            tiny = []
        }
        wide!.append(id)
    }

    /// The plan id of `node`.
    subscript(node: Int) -> UInt32 {
        if let wide { return wide[node] }
        if let narrow { return UInt32(narrow[node]) }
        return UInt32(tiny[node])
    }
}
