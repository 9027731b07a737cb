/// Small non-negative counts, one per node, in one byte each: a count of 255 or more is kept exactly in
/// a side table. Retain counts and strong in-degrees of a heap walk are almost all below 255, so a
/// walk of 10 M objects keeps each array in 10 MB instead of 40 MB, and reads every count exactly.
public struct CompactCounts: RandomAccessCollection, Sendable, Equatable {
    /// The counts below 255; 255 marks a count held in ``large``.
    @usableFromInline var small: [UInt8]
    /// The counts of 255 and more, by position.
    @usableFromInline var large: [Int: UInt32]

    /// The byte that sends a read to ``large``.
    @usableFromInline static let inLarge = UInt8.max

    /// No counts.
    public init() {
        small = []
        large = [:]
    }

    /// Counts `count` zeros.
    public init(repeatingZero count: Int) {
        small = [UInt8](repeating: 0, count: count)
        large = [:]
    }

    /// The counts of `values`, in order.
    public init<Values: Sequence>(_ values: Values) where Values.Element == UInt32 {
        small = []
        large = [:]
        small.reserveCapacity(values.underestimatedCount)
        for value in values { append(value) }
    }

    /// The first position.
    @inlinable public var startIndex: Int { 0 }

    /// One past the last position.
    @inlinable public var endIndex: Int { small.count }

    /// The count at `position`.
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    public subscript(position: Int) -> UInt32 {
        let byte = small[position]
        return byte != Self.inLarge ? UInt32(byte) : large[position]!
    }

    /// Reserves room for `capacity` counts.
    public mutating func reserveCapacity(_ capacity: Int) {
        small.reserveCapacity(capacity)
    }

    /// Appends `value`.
    @inlinable @inline(__always)
    public mutating func append(_ value: UInt32) {
        if value < UInt32(Self.inLarge) {
            small.append(UInt8(value))
        } else {
            large[small.count] = value
            small.append(Self.inLarge)
        }
    }

    /// Adds one to the count at `position`, saturating at `UInt32.max`.
    public mutating func increment(at position: Int) {
        incrementing { increment in increment(position) }
    }

    /// Calls `body` with a function that adds one to the count at a position (saturating at
    /// `UInt32.max`): the passes over every reference of a heap go through it, with no copy-on-write
    /// check per count.
    @inlinable @inline(__always)
    public mutating func incrementing(_ body: (_ increment: (Int) -> Void) -> Void) {
        var large = self.large
        self.large = [:]
        small.withUnsafeMutableBufferPointer { small in
            body { position in
                let byte = small[position]
                if byte < Self.inLarge - 1 {
                    small[position] = byte &+ 1
                } else if byte == Self.inLarge - 1 {
                    small[position] = Self.inLarge
                    large[position] = UInt32(Self.inLarge)
                } else if let value = large[position], value < UInt32.max {
                    large[position] = value + 1
                }
            }
        }
        self.large = large
    }
}
