import CLeakGraphMetadata
import LeakGraphModel

/// Builds and caches one ``ObjectPlan`` per heap-object metadata.
///
/// Not thread-safe: one walk uses one instance.
final class ObjectPlans {
    let values = ValueLayouts()
    private var cache: [UnsafeRawPointer: ObjectPlan] = [:]

    /// The plan for objects whose metadata is `metadata`.
    func plan(for metadata: UnsafeRawPointer) -> ObjectPlan {
        if let plan = cache[metadata] { return plan }
        let plan = build(metadata)
        cache[metadata] = plan
        return plan
    }

    private func build(_ metadata: UnsafeRawPointer) -> ObjectPlan {
        switch MetadataKind(of: metadata) {
        case .class:
            return classPlan(metadata)
        case .heapLocalVariable:
            return closureContextPlan(metadata)
        case .heapGenericLocalVariable:
            return boxPlan(metadata)
        case .errorObject:
            return ObjectPlan(kind: .other, typeName: "(error box)", slots: [], tail: .errorValue)
        case .task where lg_task_layout_known():
            let plan = ObjectPlan(kind: .task, typeName: "Task", slots: [], tail: .taskClosure)
            plan.role = .task
            return plan
        case .task, .job:
            return ObjectPlan(kind: .other, typeName: "(async task)", slots: [], unreadable: ["task contents are not read"])
        default:
            return ObjectPlan(kind: .other, typeName: "(heap object)", slots: [], unreadable: ["unknown heap object kind"])
        }
    }

    // MARK: Class instances

    private func classPlan(_ metadata: UnsafeRawPointer) -> ObjectPlan {
        let typeName = values.typeName(metadata)
        // Walk the superclass chain; collect levels root first so superclass fields come first.
        var levels: [UnsafeRawPointer] = []
        var current: UnsafeRawPointer? = metadata
        while let level = current, levels.count < 64 {
            levels.append(level)
            current = level.pointer(at: 8)
        }
        var slots: [Slot] = []
        var unreadable: [String] = []
        var kind = ObjectKind.class
        var tail: TailPlan?
        for level in levels.reversed() {
            guard MetadataKind(of: level) == .class, let descriptorPointer = level.pointer(at: 40) else { continue }
            let descriptor = ContextDescriptor(base: descriptorPointer)
            let genericArguments: UnsafeRawPointer? =
                descriptor.isGeneric ? descriptor.classImmediateMembersWordOffset.map { level + $0 * 8 } : nil
            if descriptor.moduleName == "Swift" {
                switch descriptor.name {
                case "_ContiguousArrayStorage":
                    kind = .arrayStorage
                    if let element = genericArguments?.pointer(at: 0) {
                        let witnesses = ValueWitnesses(of: element)
                        tail = .arrayElements(
                            element: values.slots(of: element), start: align(32, to: witnesses.alignment),
                            stride: max(1, witnesses.stride))
                    } else {
                        unreadable.append("array element type unknown")
                    }
                case "_DictionaryStorage":
                    kind = .dictionaryStorage
                    if let key = genericArguments?.pointer(at: 0), let value = genericArguments?.pointer(at: 8) {
                        tail = .dictionaryBuckets(
                            key: values.slots(of: key), keyStride: max(1, ValueWitnesses(of: key).stride),
                            value: values.slots(of: value), valueStride: max(1, ValueWitnesses(of: value).stride),
                            keyFormat: KeyFormat(typeName: values.typeName(key)))
                    } else {
                        unreadable.append("dictionary types unknown")
                    }
                case "_SetStorage":
                    kind = .setStorage
                    if let element = genericArguments?.pointer(at: 0) {
                        tail = .setBuckets(element: values.slots(of: element), stride: max(1, ValueWitnesses(of: element).stride))
                    } else {
                        unreadable.append("set element type unknown")
                    }
                case "AnyKeyPath":
                    // The component buffer is tail-allocated (32-bit elements) after the instance.
                    tail = .keyPathBuffer(headerOffset: align(Int(metadata.uint32(at: 24)), to: 4))
                case "ManagedBuffer":
                    // The header is a stored property (read below); the elements are tail-allocated, and
                    // how many are initialized only the program knows.
                    if let element = genericArguments?.pointer(at: 8), !values.slots(of: element).isEmpty {
                        unreadable.append(
                            "tail-allocated elements of type \(values.typeName(element)) are not read (ManagedBuffer: "
                                + "how many are initialized only the program knows)")
                    }
                default:
                    break
                }
            }
            let count = descriptor.classNumFields
            guard count > 0 else { continue }
            guard let fields = descriptor.fieldDescriptor else {
                unreadable.append("no reflection metadata for \(values.typeName(level))")
                continue
            }
            guard let vectorOffset = descriptor.classFieldOffsetVectorWordOffset else {
                unreadable.append("field offsets of \(values.typeName(level)) unknown")
                continue
            }
            let offsets = level + vectorOffset * 8
            for (index, record) in fields.records.prefix(count).enumerated() {
                let offset = Int(offsets.word(at: index * 8))
                slots += values.fieldSlots(
                    record: record, offset: offset, context: descriptorPointer, genericArguments: genericArguments)
            }
        }
        if kind == .class, let leaf = metadata.pointer(at: 40).map(ContextDescriptor.init),
            leaf.moduleName == "Swift", leaf.name.hasPrefix("_")
        {
            kind = .other  // runtime-internal storage: strings, empty singletons, bridging classes
        }
        if let canary = continuationCanaryPlan(metadata, typeName: typeName) {
            return canary
        }
        let plan = ObjectPlan(kind: kind, typeName: typeName, slots: slots, tail: tail, unreadable: unreadable)
        if let leaf = metadata.pointer(at: 40).map(ContextDescriptor.init), ["Swift", "_Concurrency"].contains(leaf.moduleName),
            let family = leaf.parent?.name, family == "AsyncStream" || family == "AsyncThrowingStream"
        {
            switch leaf.name {
            case "_Storage": plan.role = .asyncStreamStorage(throwing: family == "AsyncThrowingStream")
            case "_Context": plan.role = .asyncStreamContext
            default: break
            }
        }
        return plan
    }

    // MARK: Closure contexts

    private func closureContextPlan(_ metadata: UnsafeRawPointer) -> ObjectPlan {
        let firstCapture = Int(metadata.uint32(at: 8))
        guard let descriptor = metadata.pointer(at: 16) else {
            return ObjectPlan(
                kind: .closureContext, typeName: "(closure context)", slots: [],
                unreadable: ["closure context without capture descriptor"])
        }
        let captureCount = Int(descriptor.uint32(at: 0))
        let bindingCount = Int(descriptor.uint32(at: 8))
        let typeName = "(closure context, \(captureCount) capture\(captureCount == 1 ? "" : "s"))"
        if bindingCount > 0 {
            // Generic: the context stores its generic arguments ("bindings") before the captures, and
            // capture layouts depend on them, so captures are laid out per set of bindings at walk time.
            guard let generic = GenericClosurePlan(metadata: metadata, descriptor: descriptor) else {
                return ObjectPlan(
                    kind: .closureContext, typeName: typeName, slots: [],
                    unreadable: ["generic closure context with unsupported metadata sources"])
            }
            return ObjectPlan(kind: .closureContext, typeName: typeName, slots: [], tail: .genericCaptures(generic))
        }
        let layout = captureSlots(
            descriptor: descriptor, count: captureCount, startOffset: firstCapture, context: nil, genericArguments: nil)
        let plan = ObjectPlan(
            kind: .closureContext, typeName: typeName, slots: layout.slots,
            unreadable: layout.unreadable.map { [$0] } ?? [])
        if captureCount == 1, layout.unreadable == nil,
            let name = descriptor.relativeDirect(at: 12).map(MangledName.init)
        {
            // Boxes of fixed-layout values (captured vars, indirect payloads, boxed existentials) have
            // this very shape; the walk tells them apart by how they are referenced.
            plan.boxedTypeName = name.resolve(context: nil, genericArguments: nil).map { values.typeName($0) }
                ?? loweredLayout(of: name, context: nil, genericArguments: nil)?.typeName
                ?? (name.referenceStorage == .weak ? "weak reference" : "value")
        }
        return plan
    }

    private var genericCaptureCache: [[UInt]: (slots: [Slot], unreadable: String?)] = [:]

    /// The capture slots of one generic closure context object, from the bindings stored in it.
    func genericCaptureSlots(_ plan: GenericClosurePlan, object: UnsafeRawPointer) -> (slots: [Slot], unreadable: String?) {
        let bindings = object + plan.firstCapture
        var key = [UInt(bitPattern: plan.metadata)]
        for index in 0..<plan.bindingCount { key.append(bindings.word(at: index * 8)) }
        if let cached = genericCaptureCache[key] { return cached }
        // The parameters' metadata in the environment's order (bindings may come in another).
        let arguments = UnsafeMutablePointer<UInt>.allocate(capacity: plan.parameterCount)
        defer { arguments.deallocate() }
        for (parameter, binding) in plan.bindingOfParameter.enumerated() {
            arguments[parameter] = bindings.word(at: binding * 8)
        }
        let layout = captureSlots(
            descriptor: plan.descriptor, count: plan.captureCount,
            startOffset: plan.firstCapture + plan.bindingCount * 8,
            context: plan.context, genericArguments: UnsafeRawPointer(arguments))
        genericCaptureCache[key] = layout
        return layout
    }

    /// Lays out the captures of a closure context from its capture descriptor. Stops at the first
    /// capture whose type cannot be resolved (later offsets would be guesses) and says why.
    private func captureSlots(
        descriptor: UnsafeRawPointer, count: Int, startOffset: Int, context: UnsafeRawPointer?,
        genericArguments: UnsafeRawPointer?
    ) -> (slots: [Slot], unreadable: String?) {
        var slots: [Slot] = []
        var offset = startOffset
        for index in 0..<count {
            let path: ReferencePath = [.capture(index)]
            let label = path.text
            guard let name = descriptor.relativeDirect(at: 12 + index * 4).map(MangledName.init) else {
                return (slots, "\(label): no type")
            }
            let storage = name.referenceStorage
            switch storage {
            case .box, .weak, .unowned, .unownedUnsafe:
                offset = align(offset, to: 8)
                let content: SlotContent
                switch storage {
                case .box: content = .boxReference
                case .weak: content = .weakReference
                case .unowned: content = .reference(.unowned)
                default: content = .reference(.unmanaged)
                }
                slots.append(Slot(offset: offset, path: storage == .box ? path.appending(.captureBox) : path, content: content))
                offset += 8
            case .none:
                if let function = name.implFunctionRepresentation {
                    // A SIL function value captured as is (e.g. the async function of a Task closure).
                    offset = align(offset, to: 8)
                    if function == .thick {
                        slots.append(Slot(offset: offset, path: path, content: .thickFunction))
                        offset += 16
                    } else {
                        offset += 8
                    }
                    continue
                }
                guard let type = name.resolve(context: context, genericArguments: genericArguments) else {
                    // A tuple with lowered function types (an `indirect` payload's box, a captured tuple of
                    // closures): the runtime cannot build it, so it is laid out here, element by element.
                    guard let lowered = loweredLayout(of: name, context: context, genericArguments: genericArguments)
                    else {
                        // A generic class (`Future<T>`, or `Optional` of one) whose parameters the context
                        // does not bind — a class reference needs no metadata to copy or destroy, so Swift
                        // keeps none: one strong pointer, whatever the arguments.
                        if name.isGenericClassReference {
                            offset = align(offset, to: 8)
                            slots.append(Slot(offset: offset, path: path, content: .reference(.strong)))
                            offset += 8
                            continue
                        }
                        return (slots, "\(label): capture type \(readable(name)) could not be resolved")
                    }
                    offset = align(offset, to: lowered.alignment)
                    slots += lowered.slots.map { $0.shifted(by: offset, under: path) }
                    offset += lowered.size
                    continue
                }
                let witnesses = ValueWitnesses(of: type)
                offset = align(offset, to: witnesses.alignment)
                slots += values.slots(of: type).map { $0.shifted(by: offset, under: path) }
                offset += witnesses.size
            }
        }
        return (slots, nil)
    }

    /// The layout of a type the runtime cannot resolve because it contains lowered function types
    /// (``LoweredTypeName``): tuples laid out element by element in order, each at its alignment, as
    /// Swift lays out tuples; a thick function is a function pointer and a strong context (16 bytes), a
    /// thin one a pointer; every other part is resolved by the runtime on its own. `nil` when any part
    /// cannot be read exactly.
    func loweredLayout(
        of name: MangledName, context: UnsafeRawPointer?, genericArguments: UnsafeRawPointer?
    ) -> (slots: [Slot], size: Int, alignment: Int, typeName: String)? {
        guard let tree = LoweredTypeName.parse(name.bytes) else { return nil }
        func layout(_ node: LoweredTypeName.Node) -> (slots: [Slot], size: Int, alignment: Int, typeName: String)? {
            switch node.shape {
            case .function(.thick):
                return ([Slot(offset: 0, path: .empty, content: .thickFunction)], 16, 8, "closure")
            case .function(.thin), .optionalFunction(.thin):
                return ([], 8, 8, "function pointer")
            case .optionalFunction(.thick):
                // Laid out as `Optional<() -> ()>`: every thick function is a function pointer and a context,
                // and `nil` is a null function pointer, whatever the signature.
                let text = Array("yycSg".utf8)
                guard let type = text.withUnsafeBytes({ bytes in
                    MangledName.resolveText(bytes.baseAddress!, length: bytes.count)
                }) else { return nil }
                let witnesses = ValueWitnesses(of: type)
                return (values.slots(of: type), witnesses.size, witnesses.alignment, "optional closure")
            case .tuple(let elements):
                var slots: [Slot] = []
                var offset = 0
                var alignment = 1
                var names: [String] = []
                for (index, element) in elements.enumerated() {
                    guard let part = layout(element.node) else { return nil }
                    offset = align(offset, to: part.alignment)
                    let label = element.label ?? String(index)
                    slots += part.slots.map { $0.shifted(by: offset, under: [.tupleElement(label)]) }
                    offset += part.size
                    alignment = max(alignment, part.alignment)
                    names.append(element.label.map { "\($0): \(part.typeName)" } ?? part.typeName)
                }
                return (slots, offset, alignment, "(" + names.joined(separator: ", ") + ")")
            case .other:
                guard let type = name.resolve(part: node.start..<node.end, context: context, genericArguments: genericArguments)
                else { return nil }
                let witnesses = ValueWitnesses(of: type)
                return (values.slots(of: type), witnesses.size, witnesses.alignment, values.typeName(type))
            }
        }
        return layout(tree)
    }

    /// A mangled name as a diagnostic shows it: each symbolic reference replaced by the name of the type
    /// it refers to, in angle brackets, when it resolves on its own (`SS4name_Ieg_3run<Fixture.Step>4nextt`),
    /// else `<ref>`; the same name always reads the same, so diagnostics group by it.
    func readable(_ name: MangledName) -> String {
        demangled(name) ?? rawReadable(name)
    }

    /// The name demangled as a type: each symbolic reference replaced by the mangling of the type it
    /// resolves to, then `$s…D` given to the runtime's demangler (`Fixture.Step` and
    /// `(name: Swift.String, run: @callee_guaranteed () -> (), next: Fixture.Step)`); `nil` when a
    /// reference does not resolve or the result is no valid mangling.
    private func demangled(_ name: MangledName) -> String? {
        let bytes = name.bytes
        var text: [UInt8] = Array("$s".utf8)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x01...0x17:
                guard index + 5 <= bytes.count,
                    let resolved = name.resolve(part: index..<(index + 5), context: nil, genericArguments: nil)
                else { return nil }
                let type = unsafeBitCast(resolved, to: Any.Type.self)
                guard let mangled = _mangledTypeName(type) else { return nil }
                text += Array(mangled.utf8)
                index += 5
            case 0x18...0x1F:
                return nil
            default:
                text.append(bytes[index])
                index += 1
            }
        }
        text.append(UInt8(ascii: "D"))
        var buffer = [CChar](repeating: 0, count: 1024)
        let ok = text.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { lg_demangle($0.baseAddress, $0.count, &buffer, buffer.count) }
        }
        guard ok else { return nil }
        let result = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return result.isEmpty || result.hasPrefix("$s") ? nil : result
    }

    /// The name with symbolic references shown as the types they name (`<Fixture.Step>`), the rest
    /// left as mangled text.
    private func rawReadable(_ name: MangledName) -> String {
        let bytes = name.bytes
        var result = ""
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x01...0x17:
                let resolved = index + 5 <= bytes.count
                    ? name.resolve(part: index..<(index + 5), context: nil, genericArguments: nil) : nil
                result += "<" + (resolved.map { values.typeName($0) } ?? "ref") + ">"
                index += 5
            case 0x18...0x1F:
                result += "<ptr>"
                index += 1 + MemoryLayout<UInt>.size
            default:
                result.unicodeScalars.append(Unicode.Scalar(bytes[index]))
                index += 1
            }
        }
        return result
    }

    // MARK: Boxes

    private func boxPlan(_ metadata: UnsafeRawPointer) -> ObjectPlan {
        let offset = Int(metadata.uint32(at: 8))
        guard let boxed = metadata.pointer(at: 16) else {
            return ObjectPlan(kind: .box, typeName: "(box)", slots: [], unreadable: ["box without a boxed type"])
        }
        let name = "(box of \(values.typeName(boxed)))"
        return ObjectPlan(
            kind: .box, typeName: name, slots: values.slots(of: boxed).map { $0.shifted(by: offset, under: [.boxValue]) })
    }
}
