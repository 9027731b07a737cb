extension HeapSnapshot {
    /// Every object of a snapshot, one entry per object in each column (object `i` is entry `i`).
    public struct Objects: Sendable, Equatable {
        /// Each object's address in the process that was walked.
        public var address: [UInt64] = []
        /// Each object's type: an index into ``HeapSnapshot/types``.
        public var type: [UInt32] = []
        /// Each object's allocation size in bytes (its shallow size).
        public var size: [UInt64] = []
        /// Each object's strong retain count, saturated at `UInt32.max`.
        public var retainCount: [UInt32] = []
        /// Each object's creation stack: an index into ``HeapSnapshot/stacks``, or -1 when none was recorded.
        public var stack: [Int32] = []
        /// Each object's ``Flags``.
        public var flags: [Flags] = []

        /// Facts of one object.
        public struct Flags: OptionSet, Sendable, Hashable {
            /// The value's bits.
            public var rawValue: UInt8
            /// Creates flags from their bits.
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            /// Nothing alive reaches it: a leak check reports it.
            public static let leaked = Flags(rawValue: 1)
            /// Retained, but nothing in the process holds it (the holder scan proved it).
            public static let orphan = Flags(rawValue: 2)
        }

        /// No objects.
        public init() {}

        /// The number of objects.
        public var count: Int { address.count }

        /// Reserves room for `count` objects in every column.
        public mutating func reserveCapacity(_ count: Int) {
            address.reserveCapacity(count)
            type.reserveCapacity(count)
            size.reserveCapacity(count)
            retainCount.reserveCapacity(count)
            stack.reserveCapacity(count)
            flags.reserveCapacity(count)
        }

        /// Appends one object; returns its index.
        @discardableResult
        public mutating func append(
            address: UInt64, type: Int, size: Int, retainCount: Int, stack: Int?, flags: Flags = []
        ) -> Int {
            self.address.append(address)
            self.type.append(UInt32(type))
            self.size.append(UInt64(max(size, 0)))
            self.retainCount.append(UInt32(clamping: max(retainCount, 0)))
            self.stack.append(stack.map { Int32(clamping: $0) } ?? -1)
            self.flags.append(flags)
            return self.address.count - 1
        }
    }

    /// One object of a snapshot, read from its columns.
    public struct Object: Sendable, Hashable {
        /// The object's index.
        public var id: Int
        /// Its address.
        public var address: UInt64
        /// Its type's index into ``HeapSnapshot/types``.
        public var type: Int
        /// Its allocation size in bytes.
        public var size: Int
        /// Its strong retain count.
        public var retainCount: Int
        /// Its creation stack's index into ``HeapSnapshot/stacks``, when recorded.
        public var stack: Int?
        /// Whether it is leaked.
        public var isLeaked: Bool
        /// Whether it is an orphan (retained from nowhere).
        public var isOrphan: Bool
    }

    /// Object `id`.
    ///
    /// - Complexity: O(1).
    public func object(_ id: Int) -> Object {
        let stack = objects.stack[id]
        let flags = objects.flags[id]
        return Object(
            id: id, address: objects.address[id], type: Int(objects.type[id]), size: Int(objects.size[id]),
            retainCount: Int(objects.retainCount[id]), stack: stack < 0 ? nil : Int(stack),
            isLeaked: flags.contains(.leaked), isOrphan: flags.contains(.orphan))
    }

    /// The type of object `id`.
    public func type(of id: Int) -> TypeInfo {
        types[Int(objects.type[id])]
    }

    /// The object starting at `address`, or `nil`.
    ///
    /// - Complexity: O(log *n*): objects are in address order.
    public func object(at address: UInt64) -> Int? {
        var low = 0
        var high = objects.count
        while low < high {
            let middle = (low + high) / 2
            if objects.address[middle] < address { low = middle + 1 } else { high = middle }
        }
        return low < objects.count && objects.address[low] == address ? low : nil
    }

    /// The frames of object `id`'s creation stack, innermost first (empty without one).
    public func frames(of id: Int) -> [Frame] {
        let stack = objects.stack[id]
        guard stack >= 0, Int(stack) < stacks.count else { return [] }
        return stacks[Int(stack)].map { frames[$0] }
    }
}
