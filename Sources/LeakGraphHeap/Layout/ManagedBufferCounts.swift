import LeakGraphModel

/// How many tail elements of a `ManagedBuffer` are initialized, where its header says so exactly.
///
/// A `ManagedBuffer<Header, Element>` keeps `Header` in a stored property and its elements after it,
/// from the header's end aligned for `Element` (`ManagedBuffer._elementOffset`); how many are
/// initialized only the program knows. LeakGraph reads them only when the header names the count:
///
/// - **Known buffers**, recognised by the buffer class's module and name *and* its header's type, field
///   names and field types (a type that shares a name but not that shape is not read):
///   swift-collections' `Deque` (`DequeModule._DequeBuffer`, header `_DequeBufferHeader { capacity: Int,
///   count: Int, startSlot: _DequeSlot { position: Int } }`: `count` elements from slot `startSlot`,
///   wrapping at `capacity`). (Its other buffers hold no references — `OrderedSet`'s hash tables — or are
///   not read yet: `Rope` nodes, the persistent `TreeSet`/`TreeDictionary` nodes.) swift-markdown's
///   syntax tree (`Markdown.RawMarkup`, header `RawMarkupHeader { data: RawMarkupData, childCount: Int,
///   subtreeCount: Int, parsedRange: SourceRange? }`: the children `0 ..< childCount`, as its `deinit`
///   deinitializes them).
/// - **Any buffer that declares its count**: a header struct with a stored property
///   `initializedCount: Int` says that elements `0 ..< initializedCount` are initialized and no others
///   (docs/how-it-works.md, "ManagedBuffer elements").
///
/// In every case the buffer class must add no stored property of its own (the elements then start
/// where `ManagedBuffer` puts them), and at walk time the count must fit in the allocation
/// (``ManagedBufferElements``). Anything else stays diagnosed.
enum ManagedBufferCounts {
    /// The name of the header property a buffer of the program's own declares its count with.
    static let declaredCountName = "initializedCount"

    static func tail(level: KnownContainerLevel, element: UnsafeRawPointer) -> KnownContainerTail {
        let values = level.values
        let unread = KnownContainerTail.unreadable(
            "tail-allocated elements of type \(values.typeName(element)) are not read (ManagedBuffer: "
                + "how many are initialized only the program knows)")
        guard let header = level.genericArgument(0), let headerOffset = storedFieldOffsets(ofClass: level.level).first
        else { return unread }
        let headerWitnesses = ValueWitnesses(of: header)
        let elementWitnesses = ValueWitnesses(of: element)
        // The buffer class adds no stored property: its instances end where the header does.
        let instanceSize = Int(level.metadata.uint32(at: 24))
        guard instanceSize == headerOffset + headerWitnesses.size else { return unread }
        let start = align(instanceSize, to: elementWitnesses.alignment)
        let stride = max(1, elementWitnesses.stride)
        guard let count = count(header: header, at: headerOffset, buffer: level.metadata) else { return unread }
        return .tail(
            .managedBufferElements(element: values.slots(of: element), start: start, stride: stride, count: count))
    }

    /// Where the header says how many elements are initialized, or `nil`.
    private static func count(header: UnsafeRawPointer, at headerOffset: Int, buffer: UnsafeRawPointer)
        -> ManagedBufferCount?
    {
        guard let fields = structFields(header) else { return nil }
        let bufferName = ClassMetadata(buffer).descriptor
        let headerName = ValueMetadata(header).descriptorAddress.map(ContextDescriptor.init)
        func field(_ name: String, _ type: Any.Type) -> Int? {
            guard let field = fields[name], field.type == unsafeBitCast(type, to: UnsafeRawPointer.self) else {
                return nil
            }
            return headerOffset + field.offset
        }
        if bufferName?.name == "_DequeBuffer", bufferName?.moduleName == "DequeModule",
            headerName?.name == "_DequeBufferHeader", headerName?.moduleName == "DequeModule", fields.count == 3,
            let capacity = field("capacity", Int.self), let count = field("count", Int.self),
            let slot = fields["startSlot"], let slotFields = structFields(slot.type), slotFields.count == 1,
            let position = slotFields["position"], position.type == unsafeBitCast(Int.self, to: UnsafeRawPointer.self)
        {
            return .ring(
                capacityOffset: capacity, countOffset: count, startOffset: headerOffset + slot.offset + position.offset)
        }
        if bufferName?.name == "RawMarkup", bufferName?.moduleName == "Markdown", headerName?.name == "RawMarkupHeader",
            headerName?.moduleName == "Markdown", fields.count == 4, fields["data"] != nil,
            fields["parsedRange"] != nil,
            let childCount = field("childCount", Int.self), field("subtreeCount", Int.self) != nil
        {
            return .prefix(countOffset: childCount, byteCount: 8)
        }
        if let declared = field(declaredCountName, Int.self) {
            return .prefix(countOffset: declared, byteCount: 8)
        }
        return nil
    }

    /// The stored fields of a struct: name → offset and type; `nil` when any cannot be resolved.
    static func structFields(_ metadata: UnsafeRawPointer) -> [String: (offset: Int, type: UnsafeRawPointer)]? {
        guard MetadataKind(of: metadata) == .struct, let descriptorPointer = ValueMetadata(metadata).descriptorAddress
        else { return nil }
        let descriptor = ContextDescriptor(base: descriptorPointer)
        guard let records = descriptor.fieldDescriptor?.records.prefix(descriptor.structNumFields) else { return nil }
        let offsets = metadata + descriptor.structFieldOffsetVectorOffset * 8
        let genericArguments = descriptor.isGeneric ? metadata + 16 : nil
        var result: [String: (offset: Int, type: UnsafeRawPointer)] = [:]
        for (index, record) in records.enumerated() {
            guard
                let type = record.mangledTypeName?.resolve(
                    context: descriptorPointer, genericArguments: genericArguments)
            else { return nil }
            result[record.name] = (Int(offsets.uint32(at: index * 4)), type)
        }
        return result
    }

    /// The offsets of the stored properties a class level declares itself.
    private static func storedFieldOffsets(ofClass level: UnsafeRawPointer) -> [Int] {
        guard let descriptorPointer = ClassMetadata(level).descriptorAddress else { return [] }
        let descriptor = ContextDescriptor(base: descriptorPointer)
        guard let vector = descriptor.classFieldOffsetVectorWordOffset else { return [] }
        return (0..<descriptor.classNumFields).map {
            Int(ClassMetadata(level).members(atWord: vector).word(at: $0 * 8))
        }
    }
}
