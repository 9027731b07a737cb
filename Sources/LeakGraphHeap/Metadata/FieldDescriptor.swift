/// Reflection field records of a nominal type (swift/RemoteInspection/Records.h).
struct FieldDescriptor {
    let base: UnsafeRawPointer

    var recordSize: Int { Int(base.loadUnaligned(fromByteOffset: 10, as: UInt16.self)) }
    var count: Int { Int(base.uint32(at: 12)) }

    var records: [FieldRecord] {
        let size = recordSize
        guard size >= 12 else { return [] }
        return (0..<count).map { FieldRecord(base: base + 16 + $0 * size) }
    }
}

/// One stored property or enum case.
struct FieldRecord {
    let base: UnsafeRawPointer

    var flags: UInt32 { base.uint32(at: 0) }
    var isIndirectCase: Bool { flags & 0x1 != 0 }
    var mangledTypeName: MangledName? { base.relativeDirect(at: 4).map(MangledName.init) }
    var name: String { base.relativeDirect(at: 8)?.cString() ?? "" }
}
