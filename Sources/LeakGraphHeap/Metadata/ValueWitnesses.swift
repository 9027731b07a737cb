/// The parts of a type's value witness table the walk needs (swift/ABI/ValueWitness.def).
///
/// Layout on 64-bit: eight witness function pointers, then size, stride, flags, extra inhabitant
/// count, then (for enums) getEnumTag, destructiveProjectEnumData, destructiveInjectEnumTag.
struct ValueWitnesses {
    let table: UnsafeRawPointer

    init(of metadata: UnsafeRawPointer) {
        table = metadata.pointer(at: -8)!
    }

    var size: Int { Int(table.word(at: 64)) }
    var stride: Int { Int(table.word(at: 72)) }
    var flags: UInt32 { table.uint32(at: 80) }
    var alignment: Int { Int(flags & 0xFF) + 1 }
    /// Whether copying the type needs more than a byte copy (it holds references).
    var isNonPOD: Bool { flags & 0x0001_0000 != 0 }
    /// Whether the type does not fit in an existential's inline buffer.
    var isNonInline: Bool { flags & 0x0002_0000 != 0 }
    var hasEnumWitnesses: Bool { flags & 0x0020_0000 != 0 }
    var getEnumTag: UnsafeRawPointer? { hasEnumWitnesses ? table.pointer(at: 88) : nil }
    var destructiveProjectEnumData: UnsafeRawPointer? { hasEnumWitnesses ? table.pointer(at: 96) : nil }
}
