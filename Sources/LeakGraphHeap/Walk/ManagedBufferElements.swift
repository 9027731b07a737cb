/// Which tail elements of a `ManagedBuffer` are initialized, from the counts its header holds
/// (``ManagedBufferCount``), checked against the capacity of the allocation.
enum ManagedBufferElements {
    /// Calls `body(index, slot)` for every initialized element: its position in the collection and its
    /// slot in the buffer. Returns false, calling nothing, when the header's numbers do not fit in
    /// `capacity` elements (a count read wrong is a false edge).
    static func forEachInitialized(
        _ count: ManagedBufferCount, in object: UnsafeRawPointer, capacity: Int, _ body: (Int, Int) -> Void
    ) -> Bool {
        switch count {
        case .prefix(let countOffset, let byteCount):
            let value: Int
            switch byteCount {
            case 1: value = Int(object.load(fromByteOffset: countOffset, as: UInt8.self))
            case 2: value = Int(object.loadUnaligned(fromByteOffset: countOffset, as: UInt16.self))
            case 4: value = Int(object.uint32(at: countOffset))
            default: value = Int(bitPattern: object.word(at: countOffset))
            }
            guard value >= 0, value <= capacity else { return false }
            for index in 0..<value { body(index, index) }
            return true
        case .ring(let capacityOffset, let countOffset, let startOffset):
            let ringCapacity = Int(bitPattern: object.word(at: capacityOffset))
            let value = Int(bitPattern: object.word(at: countOffset))
            let start = Int(bitPattern: object.word(at: startOffset))
            guard ringCapacity >= 0, ringCapacity <= capacity, value >= 0, value <= ringCapacity, start >= 0,
                start <= ringCapacity
            else { return false }
            for index in 0..<value { body(index, (start + index) % ringCapacity) }
            return true
        }
    }
}
