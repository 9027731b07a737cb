/// Metadata kinds of the Swift runtime (swift/ABI/MetadataKind.def).
enum MetadataKind: UInt, CaseIterable {
    case `class` = 0
    case `struct` = 0x200
    case `enum` = 0x201
    case optional = 0x202
    case foreignClass = 0x203
    case foreignReferenceType = 0x204
    case opaque = 0x300
    case tuple = 0x301
    case function = 0x302
    case existential = 0x303
    case metatype = 0x304
    case objcClassWrapper = 0x305
    case existentialMetatype = 0x306
    case extendedExistential = 0x307
    case fixedArray = 0x308
    case heapLocalVariable = 0x400
    case heapGenericLocalVariable = 0x500
    case errorObject = 0x501
    case task = 0x502
    case job = 0x503

    /// Reads the kind of a metadata record. Values above the last enumerated kind are class isa pointers.
    init?(of metadata: UnsafeRawPointer) {
        let raw = metadata.word()
        if raw > 0x7FF {
            self = .class
        } else {
            self.init(rawValue: raw)
        }
    }
}
