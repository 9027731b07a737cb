import CLeakGraphMetadata
import LeakGraphModel

/// Builds and caches one ``ObjectPlan`` per heap-object metadata.
///
/// Not thread-safe: one walk uses one instance.
final class ObjectPlans {
    let values = ValueLayouts()
    private var cache: [UnsafeRawPointer: ObjectPlan] = [:]
    /// Layouts of generic closure contexts, keyed by what decides them (``genericCaptureSlots(_:object:size:)``).
    var captureSchedule: [[UInt]: CaptureStep] = [:]
    /// Resolved parts of mangled names, by address, length and generic arguments (0: not resolvable).
    var resolutions: [[UInt]: UInt] = [:]
    var optionalClosureMetadata: UnsafeRawPointer?
    /// The empty tuple's metadata: the argument given for a generic parameter a resolved name never reads.
    lazy var emptyTuple: UnsafeRawPointer = {
        let text = Array("yt".utf8)
        return text.withUnsafeBytes { MangledName.resolveText($0.baseAddress!, length: $0.count)! }
    }()

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
