/// A view of a Swift class's metadata record, with a name for each field the walk reads.
///
/// The layout is the runtime's `TargetClassMetadata` (include/swift/ABI/Metadata.h) on a 64-bit platform
/// without Objective-C interop, such as Linux, where it derives from `TargetAnyClassMetadata` (kind and
/// superclass only; the `CacheData` and `Data` words exist only with Objective-C interop):
///
/// | offset | field |
/// |---|---|
/// | 0 | kind (`MetadataKind.class`, 0) |
/// | 8 | `Superclass` (null for a root class) |
/// | 16 | `Flags` (32 bits) |
/// | 20 | `InstanceAddressPoint` (32 bits) |
/// | 24 | `InstanceSize` (32 bits) |
/// | 28 | `InstanceAlignMask`, `Reserved` (16 bits each) |
/// | 32 | `ClassSize`, `ClassAddressPoint` (32 bits each) |
/// | 40 | `Description` (the nominal type descriptor; null for an artificial subclass) |
/// | 48 | `IVarDestroyer` |
///
/// After them come the class members, each level's counted in words from the address point (`base`):
/// generic arguments and the field offset vector, whose word offsets the class's descriptor gives
/// (``ContextDescriptor/classImmediateMembersWordOffset``, ``ContextDescriptor/classFieldOffsetVectorWordOffset``).
/// `ClassMetadataTests` checks these offsets against classes of this toolchain.
struct ClassMetadata {
    /// The metadata's address point.
    let base: UnsafeRawPointer

    /// Views `base` as class metadata (the caller knows it is one, e.g. from ``MetadataKind``).
    init(_ base: UnsafeRawPointer) {
        self.base = base
    }

    /// The superclass's metadata, or `nil` for a root class.
    var superclass: UnsafeRawPointer? { base.pointer(at: 8) }

    /// The size of an instance in bytes, header included (`InstanceSize`).
    var instanceSize: Int { Int(base.uint32(at: 24)) }

    /// The address of the class's nominal type descriptor, or `nil` for an artificial subclass
    /// (`Description`).
    var descriptorAddress: UnsafeRawPointer? { base.pointer(at: ClassMetadata.descriptorOffset) }

    /// The class's nominal type descriptor, or `nil` for an artificial subclass.
    var descriptor: ContextDescriptor? { descriptorAddress.map(ContextDescriptor.init) }

    /// The address `words` words from the address point: where a class member such as the generic
    /// arguments or the field offset vector starts.
    func members(atWord words: Int) -> UnsafeRawPointer { base + words * 8 }

    /// The byte offset of `Description` from the address point (value metadata keep theirs at 8).
    static let descriptorOffset = 40
}

/// A view of a struct's or an enum's metadata record (`TargetValueMetadata` in
/// include/swift/ABI/Metadata.h): the kind at 0, then `Description`, the nominal type descriptor, at 8.
struct ValueMetadata {
    /// The metadata's address point.
    let base: UnsafeRawPointer

    /// Views `base` as struct or enum metadata (kinds `struct`, `enum`, `optional`).
    init(_ base: UnsafeRawPointer) {
        self.base = base
    }

    /// The address of the type's nominal type descriptor (`Description`).
    var descriptorAddress: UnsafeRawPointer? { base.pointer(at: ValueMetadata.descriptorOffset) }

    /// The byte offset of `Description` from the address point.
    static let descriptorOffset = 8
}
