import CLeakGraphMetadata
import LeakGraphModel

/// Builds and caches the slot layout of value types from their metadata.
///
/// Not thread-safe: one walk uses one instance.
final class ValueLayouts {
    private var cache: [UnsafeRawPointer: [Slot]] = [:]
    private var inProgress: Set<UnsafeRawPointer> = []

    /// The slots of a value of type `metadata`, offsets relative to the value's start.
    func slots(of metadata: UnsafeRawPointer) -> [Slot] {
        if let cached = cache[metadata] { return cached }
        guard inProgress.insert(metadata).inserted else {
            return [Slot(offset: 0, path: .empty, content: .unreadable("recursive value layout"))]
        }
        defer { inProgress.remove(metadata) }
        let result = build(metadata)
        cache[metadata] = result
        return result
    }

    private func build(_ metadata: UnsafeRawPointer) -> [Slot] {
        guard let kind = MetadataKind(of: metadata) else {
            return [Slot(offset: 0, path: .empty, content: .unreadable("unknown metadata kind \(metadata.word())"))]
        }
        switch kind {
        case .class, .foreignClass, .foreignReferenceType, .objcClassWrapper:
            return [Slot(offset: 0, path: .empty, content: .reference(.strong))]
        case .struct:
            return structSlots(metadata)
        case .optional, .enum:
            return enumSlots(metadata, isOptional: kind == .optional)
        case .tuple:
            return tupleSlots(metadata)
        case .function:
            return functionSlots(metadata)
        case .existential:
            return existentialSlots(metadata)
        case .extendedExistential:
            return extendedExistentialSlots(metadata)
        case .fixedArray:
            return fixedArraySlots(metadata)
        case .metatype, .existentialMetatype:
            return []
        case .opaque:
            return opaqueSlots(metadata)
        default:
            return nonPODOrUnreadable(metadata, reason: "values of metadata kind \(kind) are not read")
        }
    }

    private func nonPODOrUnreadable(_ metadata: UnsafeRawPointer, reason: String) -> [Slot] {
        ValueWitnesses(of: metadata).isNonPOD ? [Slot(offset: 0, path: .empty, content: .unreadable(reason))] : []
    }

    // MARK: Builtins

    private func opaqueSlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        if typeName(metadata) == "Builtin.RawUnsafeContinuation" {
            return [Slot(offset: 0, path: .empty, content: .continuation)]
        }
        guard ValueWitnesses(of: metadata).isNonPOD else { return [] }
        switch typeName(metadata) {
        case "Builtin.NativeObject":
            return [Slot(offset: 0, path: .empty, content: .reference(.strong))]
        case "Builtin.BridgeObject":
            // On Linux a bridge object is a native object pointer with flag bits in its top nibble
            // (Dictionary/Set `_BridgeStorage`, String's `_object`); only an untagged word is a pointer.
            return [Slot(offset: 0, path: .empty, content: .bridgeObject)]
        default:
            return [Slot(offset: 0, path: .empty, content: .unreadable("builtin \(typeName(metadata))"))]
        }
    }

    // MARK: Structs

    private func structSlots(_ metadata: UnsafeRawPointer) -> [Slot] {

        guard let descriptorPointer = ValueMetadata(metadata).descriptorAddress else {
            return nonPODOrUnreadable(metadata, reason: "struct without descriptor")
        }
        let descriptor = ContextDescriptor(base: descriptorPointer)
        if let known = KnownStorage.knownStruct(module: descriptor.moduleName, name: descriptor.name) {
            return known.slots()
        }
        let count = descriptor.structNumFields
        guard count > 0 else { return rawLayoutSlots(metadata) }
        guard let fields = descriptor.fieldDescriptor else {
            return nonPODOrUnreadable(metadata, reason: "no reflection metadata for \(typeName(metadata))")
        }
        let offsets = metadata + descriptor.structFieldOffsetVectorOffset * 8
        let genericArguments = descriptor.isGeneric ? metadata + 16 : nil
        // Standard library structs (Array, Dictionary, ArraySlice, String…) keep their storage in
        // internal properties: a reference found inside them is shown under the user's property alone,
        // marked as lying in storage (one `.storage` step however deep the internals nest).
        let hidesInternals = descriptor.moduleName == "Swift"
        var result: [Slot] = []
        for (index, record) in fields.records.prefix(count).enumerated() {
            let offset = Int(offsets.uint32(at: index * 4))
            let slots = fieldSlots(
                record: record, path: hidesInternals ? .empty : nil, offset: offset,
                context: descriptorPointer, genericArguments: genericArguments)
            result +=
                hidesInternals
                ? slots.map { $0.path.steps.first == .storage ? $0 : $0.shifted(by: 0, under: [.storage]) } : slots
        }
        return result
    }

    /// A struct without stored fields that still needs destroying: a `@_rawLayout` type (the storage of
    /// `Synchronization`'s types), whose contents only its own code knows. Named as not read.
    private func rawLayoutSlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        guard ValueWitnesses(of: metadata).isNonPOD else { return [] }
        return [
            Slot(
                offset: 0, path: .empty,
                content: .unreadable("\(typeName(metadata)) has no stored fields to read (raw layout)"))
        ]
    }

    /// The slots of one stored property, shifted to `offset` and placed under `path` (by default the
    /// property itself).
    func fieldSlots(
        record: FieldRecord, path: ReferencePath? = nil, offset: Int, context: UnsafeRawPointer,
        genericArguments: UnsafeRawPointer?
    ) -> [Slot] {
        let name = path ?? [.property(Self.propertyName(record.name))]
        guard let mangled = record.mangledTypeName else {
            return [Slot(offset: offset, path: name, content: .unreadable("field without type"))]
        }
        switch mangled.referenceStorage {
        case .weak:
            return [Slot(offset: offset, path: name, content: .weakReference)]
        case .unowned:
            return [Slot(offset: offset, path: name, content: .reference(.unowned))]
        case .unownedUnsafe:
            return [Slot(offset: offset, path: name, content: .reference(.unmanaged))]
        case .box:
            return [Slot(offset: offset, path: name, content: .boxReference)]
        case .none:
            break
        }
        guard let type = mangled.resolve(context: context, genericArguments: genericArguments) else {
            return [Slot(offset: offset, path: name, content: .unreadable("field type could not be resolved"))]
        }
        if MetadataKind(of: type) == .tuple, type.word(at: 8) == 0, mangled.textSuffix != Array("yt".utf8) {
            // The runtime's reflection answers a type that is not `Copyable` (`Mutex<[Subscriber]>`) with
            // the empty tuple, through an accessor the compiler emits for older reflection clients.
            return hiddenFieldSlots(mangled, context: context, genericArguments: genericArguments)
                .map { $0.shifted(by: offset, under: name) }
        }
        return slots(of: type).map { $0.shifted(by: offset, under: name) }
    }

    /// The slots of a field whose type is not `Copyable`: its type's name is found in the module's symbol
    /// table (``HiddenTypeName``) and read when it is a known type (``KnownStorage/noncopyable``) whose
    /// layout facts hold on this toolchain (``SynchronizationLayout``); otherwise one unreadable slot.
    private func hiddenFieldSlots(
        _ mangled: MangledName, context: UnsafeRawPointer, genericArguments: UnsafeRawPointer?
    ) -> [Slot] {
        func unreadable(_ reason: String) -> [Slot] { [Slot(offset: 0, path: .empty, content: .unreadable(reason))] }
        guard let hidden = HiddenTypeName(fieldTypeName: mangled) else {
            return unreadable(
                "field type is not Copyable: reflection gives no layout for it, and the module's symbol table does not name it"
            )
        }
        let shown = readableHiddenName(hidden)
        guard let module = hidden.module, let name = hidden.name,
            let known = KnownStorage.noncopyableType(module: module, name: name)
        else { return unreadable("field type \(shown) is not Copyable and not a type LeakGraph knows the layout of") }
        if let failure = SynchronizationLayout.failure {
            return unreadable("field type \(shown) is not read: \(failure)")
        }
        let argument =
            hidden.argument == nil ? nil : hidden.resolveArgument(context: context, genericArguments: genericArguments)
        if hidden.argument != nil, argument == nil, let collection = hidden.argumentCollection() {
            // A collection of types that cannot be resolved by name (private ones): one strong reference
            // to its storage, whatever its elements; laid out as `[Int]` is.
            guard let stand = KnownStorage.collectionStandIns[collection] else {
                return unreadable("field type \(shown)")
            }
            switch known.layout(stand(), self) {
            case .slots(let slots): return slots
            case .unreadable(let reason): return unreadable("field type \(shown): \(reason)")
            }
        }
        switch known.layout(argument, self) {
        case .slots(let slots): return slots
        case .unreadable(let reason): return unreadable("field type \(shown): \(reason)")
        }
    }

    /// A hidden type name as a diagnostic shows it: demangled by the runtime (`Synchronization.Mutex<…>`),
    /// else its mangling.
    private func readableHiddenName(_ hidden: HiddenTypeName) -> String {
        HiddenTypeName.demangle(hidden.text) ?? String(decoding: hidden.text, as: UTF8.self)
    }

    // MARK: Tuples

    private func tupleSlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        let count = Int(metadata.word(at: 8))
        let labels = metadata.pointer(at: 16).map {
            $0.cString().split(separator: " ", omittingEmptySubsequences: false)
        }
        var result: [Slot] = []
        for index in 0..<count {
            let element = metadata + 24 + index * 16
            guard let type = element.pointer(at: 0) else { continue }
            // On Linux an element's offset is a 32-bit field followed by padding the runtime never
            // writes (TargetTupleTypeMetadata::Element: StoredSize on Apple platforms only).
            let offset = Int(element.uint32(at: 8))
            var label = String(index)
            if let labels, index < labels.count, !labels[index].isEmpty { label = String(labels[index]) }
            result += slots(of: type).map { $0.shifted(by: offset, under: [.tupleElement(label)]) }
        }
        return result
    }

    // MARK: Functions and existentials

    private func functionSlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        let flags = metadata.word(at: 8)
        let convention = (flags >> 16) & 0xFF
        // 0 = Swift (thick: function pointer + context), 1 = block (a pointer to a heap block); thin and C
        // function pointers have no context.
        switch convention {
        case 0: return [Slot(offset: 0, path: .empty, content: .thickFunction)]
        case 1: return [Slot(offset: 0, path: .empty, content: .block)]
        default: return []
        }
    }

    private func existentialSlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        let flags = metadata.uint32(at: 8)
        let isClassBound = flags & 0x8000_0000 == 0
        let special = (flags >> 24) & 0x3F
        if special == 1 {
            // `any Error`: one pointer to an error box.
            return [Slot(offset: 0, path: .empty, content: .reference(.strong))]
        }
        if isClassBound {
            return [Slot(offset: 0, path: .empty, content: .classExistential)]
        }
        let name = typeName(metadata)
        return [
            Slot(
                offset: 0, path: .empty,
                content: .opaqueExistential(name.hasPrefix("any ") || name == "Any" ? name : "any " + name))
        ]
    }

    /// `any Repository<Product>` (an existential with primary associated types, metadata kind 0x307):
    /// the metadata holds its shape (swift/ABI/Metadata.h, `ExtendedExistentialTypeShape`), whose flags
    /// say how the value is stored. A class-constrained one holds the object pointer inline, an opaque one
    /// is the ordinary container (three-word buffer, then the dynamic type's metadata, then witness
    /// tables), a metatype-constrained one holds a metadata pointer; an explicit layout is not read.
    private func extendedExistentialSlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        guard let shape = metadata.pointer(at: 8) else {
            return [Slot(offset: 0, path: .empty, content: .unreadable("extended existential without shape"))]
        }
        switch shape.uint32(at: 0) & 0xFF {
        case 0: return [Slot(offset: 0, path: .empty, content: .opaqueExistential(typeName(metadata)))]
        case 1: return [Slot(offset: 0, path: .empty, content: .classExistential)]
        case 2: return []
        default:
            return nonPODOrUnreadable(metadata, reason: "\(typeName(metadata)) has an explicit existential layout")
        }
    }

    /// `InlineArray<count, Element>`'s storage, `Builtin.FixedArray` (metadata kind 0x308): the count (a
    /// pointer-sized integer) at +8 and the element's metadata at +16 (swift/ABI/Metadata.h,
    /// `TargetFixedArrayTypeMetadata`); the elements follow one another at the element's stride, which is
    /// checked against the array's own size before it is believed.
    private func fixedArraySlots(_ metadata: UnsafeRawPointer) -> [Slot] {
        let count = Int(bitPattern: metadata.word(at: 8))
        guard count > 0, let element = metadata.pointer(at: 16) else { return [] }
        let elementSlots = slots(of: element)
        guard !elementSlots.isEmpty else { return [] }
        let stride = ValueWitnesses(of: element).stride
        guard ValueWitnesses(of: metadata).size == count * stride else {
            return [
                Slot(
                    offset: 0, path: .empty, content: .unreadable("inline array size does not match \(count) elements"))
            ]
        }
        guard count * elementSlots.count <= 1 << 16 else {
            return [
                Slot(
                    offset: 0, path: .empty,
                    content: .unreadable("inline array of \(count) elements is too large to lay out"))
            ]
        }
        var result: [Slot] = []
        result.reserveCapacity(count * elementSlots.count)
        for index in 0..<count {
            result += elementSlots.map { $0.shifted(by: index * stride, under: [.element(index)]) }
        }
        return result
    }

    // MARK: Enums

    private func enumSlots(_ metadata: UnsafeRawPointer, isOptional: Bool) -> [Slot] {
        let witnesses = ValueWitnesses(of: metadata)
        if isOptional, witnesses.size == 8, let wrapped = metadata.pointer(at: 16) {
            // `UnsafeContinuation?` (an `AsyncThrowingStream`'s waiting consumer): a raw continuation is
            // never null, so nil is 0 and the value is the task's address.
            let inner = slots(of: wrapped)
            if inner.count == 1, inner[0].offset == 0, case .continuation = inner[0].content { return inner }
        }
        guard witnesses.isNonPOD else { return [] }
        guard let descriptorPointer = ValueMetadata(metadata).descriptorAddress, witnesses.getEnumTag != nil,
            witnesses.destructiveProjectEnumData != nil
        else {
            return [Slot(offset: 0, path: .empty, content: .unreadable("enum without witnesses"))]
        }
        let descriptor = ContextDescriptor(base: descriptorPointer)
        guard let fields = descriptor.fieldDescriptor else {
            return [
                Slot(offset: 0, path: .empty, content: .unreadable("no reflection metadata for \(typeName(metadata))"))
            ]
        }
        let genericArguments = descriptor.isGeneric ? metadata + 16 : nil
        var cases: [EnumPlan.EnumCase] = []
        for record in fields.records where record.mangledTypeName != nil {
            let name = record.name
            if record.isIndirectCase {
                cases.append(
                    .init(name: name, isIndirect: true, slots: [Slot(offset: 0, path: .empty, content: .boxReference)]))
                continue
            }
            // A payload case's record holds its payload type; fieldSlots resolves and lays it out.
            let payload = fieldSlots(
                record: record, path: .empty, offset: 0, context: descriptorPointer, genericArguments: genericArguments)
            cases.append(.init(name: name, isIndirect: false, slots: payload))
        }
        guard cases.count == descriptor.enumNumPayloadCases else {
            return [
                Slot(offset: 0, path: .empty, content: .unreadable("enum payload cases do not match its descriptor"))
            ]
        }
        if cases.allSatisfy({ $0.slots.isEmpty }) { return [] }
        if cases.count == 1, witnesses.size == 8, cases[0].slots.count == 1, !cases[0].isIndirect,
            case .reference(.strong) = cases[0].slots[0].content, cases[0].slots[0].offset == 0
        {
            // The enum is a single strong class reference (`Optional<SomeClass>`, or a payload struct with
            // one class field): its word is the pointer, and every other case is zero or a small extra
            // inhabitant that names no object. Read it as a plain reference slot, its path fixed here once
            // (`next` → `.optionalPayload`; `t` → `.optionalPayload` → `inner`), so the walk allocates nothing.
            let caseStep: PathStep = isOptional ? .optionalPayload : .enumCase(cases[0].name)
            return [Slot(offset: 0, path: cases[0].slots[0].path.prepending(caseStep), content: .reference(.strong))]
        }
        let plan = EnumPlan(metadata: metadata, size: witnesses.size, isOptional: isOptional, payloadCases: cases)
        return [Slot(offset: 0, path: .empty, content: .enumeration(plan))]
    }

    /// The name a person wrote for a stored property: `lazy var onTap` is stored as
    /// `$__lazy_storage_$_onTap`, a property wrapper's storage as `_value`.
    static func propertyName(_ stored: String) -> String {
        let lazyPrefix = "$__lazy_storage_$_"
        if stored.hasPrefix(lazyPrefix) { return String(stored.dropFirst(lazyPrefix.count)) }
        return stored
    }

    // MARK: Key path arguments

    private var keyPathArgumentCache: [UnsafeRawPointer: (size: Int, slots: [Slot], unreadable: String?)] = [:]

    /// The slots of a key path's argument area with these witnesses and size (``KeyPathArguments``),
    /// built once per witnesses.
    func keyPathArgumentSlots(witnesses: UnsafeRawPointer, size: Int) -> (slots: [Slot], unreadable: String?) {
        if let cached = keyPathArgumentCache[witnesses], cached.size == size {
            return (cached.slots, cached.unreadable)
        }
        let layout = KeyPathArguments.slots(witnesses: witnesses, size: size, values: self)
        keyPathArgumentCache[witnesses] = (size, layout.slots, layout.unreadable)
        return layout
    }

    // MARK: Names

    private var names: [UnsafeRawPointer: String] = [:]

    /// Drops the addresses the runtime prints for private and local contexts
    /// (`(unknown context at $7f3a869b17f8)`), which change from run to run.
    static func stableTypeName(_ name: String) -> String {
        guard name.contains("(unknown context at $") else { return name }
        var result = ""
        var rest = Substring(name)
        while let range = rest.firstRange(of: "(unknown context at $") {
            result += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            if let close = rest.firstIndex(of: ")") { rest = rest[rest.index(after: close)...] }
            result += "(private)"
        }
        return result + rest
    }

    /// The runtime's qualified name of a type.
    func typeName(_ metadata: UnsafeRawPointer) -> String {
        if let name = names[metadata] { return name }
        let name = Self.stableTypeName(_typeName(unsafeBitCast(metadata, to: Any.Type.self), qualified: true))
        names[metadata] = name
        return name
    }
}
