import LeakGraphModel

/// The stored property of a class instance that covers a byte offset, read from the class's reflection
/// metadata (field records and field offset vector, every class of the superclass chain): names a word
/// the walk does not read as a reference (an `UnsafeRawPointer` or `Unmanaged` field) when the holder
/// scan finds that it points at an object.
enum FieldNames {
    /// The property of the instance whose metadata is `metadata` that contains byte `offset`: the one
    /// with the greatest field offset not above it, when it is a class instance and its fields are
    /// described; `nil` otherwise, for an offset before the first field (the object header), and for one
    /// past the instance's declared size (memory allocated beyond it, such as a CoreFoundation object's
    /// C struct).
    static func field(containing offset: Int, metadata: UnsafeRawPointer) -> String? {
        guard MetadataKind(of: metadata) == .class, offset < ClassMetadata(metadata).instanceSize else { return nil }
        var best: (offset: Int, name: String)?
        var current: UnsafeRawPointer? = metadata
        for _ in 0..<64 {
            guard let level = current, MetadataKind(of: level) == .class else { break }
            current = ClassMetadata(level).superclass
            guard let descriptorPointer = ClassMetadata(level).descriptorAddress else { continue }
            let descriptor = ContextDescriptor(base: descriptorPointer)
            let count = descriptor.classNumFields
            guard count > 0, let fields = descriptor.fieldDescriptor,
                let vectorOffset = descriptor.classFieldOffsetVectorWordOffset
            else { continue }
            let offsets = ClassMetadata(level).members(atWord: vectorOffset)
            for (index, record) in fields.records.prefix(count).enumerated() {
                let fieldOffset = Int(offsets.word(at: index * 8))
                if fieldOffset <= offset, best.map({ fieldOffset > $0.offset }) ?? true {
                    best = (fieldOffset, ValueLayouts.propertyName(record.name))
                }
            }
        }
        return best?.name
    }
}
