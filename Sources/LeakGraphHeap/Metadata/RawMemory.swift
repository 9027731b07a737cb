/// Raw reads of runtime data structures. Nothing here copies a Swift value: every read is of plain
/// words and integers, so no retain count changes while the heap is walked.
extension UnsafeRawPointer {
    @inline(__always)
    func word(at offset: Int = 0) -> UInt {
        loadUnaligned(fromByteOffset: offset, as: UInt.self)
    }

    @inline(__always)
    func uint32(at offset: Int) -> UInt32 {
        loadUnaligned(fromByteOffset: offset, as: UInt32.self)
    }

    @inline(__always)
    func int32(at offset: Int) -> Int32 {
        loadUnaligned(fromByteOffset: offset, as: Int32.self)
    }

    @inline(__always)
    func pointer(at offset: Int) -> UnsafeRawPointer? {
        UnsafeRawPointer(bitPattern: word(at: offset))
    }

    /// Follows a 32-bit relative direct pointer stored at `offset`; `nil` when it is zero.
    func relativeDirect(at offset: Int) -> UnsafeRawPointer? {
        let delta = int32(at: offset)
        guard delta != 0 else { return nil }
        return self + offset + Int(delta)
    }

    /// Follows a 32-bit relative indirectable pointer (low bit set: the target holds the real pointer).
    func relativeIndirectable(at offset: Int) -> UnsafeRawPointer? {
        let delta = int32(at: offset)
        guard delta != 0 else { return nil }
        if delta & 1 == 0 {
            return self + offset + Int(delta)
        }
        return (self + offset + Int(delta & ~1)).pointer(at: 0)
    }

    /// Reads a NUL-terminated UTF-8 string.
    func cString() -> String {
        String(cString: assumingMemoryBound(to: CChar.self))
    }
}

/// Rounds `value` up to a multiple of `alignment` (a power of two).
@inline(__always)
func align(_ value: Int, to alignment: Int) -> Int {
    (value + alignment - 1) & ~(alignment - 1)
}
