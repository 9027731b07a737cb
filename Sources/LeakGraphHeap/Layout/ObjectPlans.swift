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

    /// The metadata whose plans are built.
    var builtMetadata: [UInt] { cache.keys.map { UInt(bitPattern: $0) } }

    /// Whether the plan for `metadata` is built.
    func hasPlan(for metadata: UnsafeRawPointer) -> Bool { cache[metadata] != nil }

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
            return ObjectPlan(
                kind: .other, typeName: "(async task)", slots: [], unreadable: ["task contents are not read"])
        default:
            return ObjectPlan(
                kind: .other, typeName: "(heap object)", slots: [], unreadable: ["unknown heap object kind"])
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
            current = ClassMetadata(level).superclass
        }
        var slots: [Slot] = []
        var unreadable: [String] = []
        var kind = ObjectKind.class
        var tail: TailPlan?
        for level in levels.reversed() {
            guard MetadataKind(of: level) == .class, let descriptorPointer = ClassMetadata(level).descriptorAddress
            else { continue }
            let descriptor = ContextDescriptor(base: descriptorPointer)
            let genericArguments: UnsafeRawPointer? =
                descriptor.isGeneric
                ? descriptor.classImmediateMembersWordOffset.map(ClassMetadata(level).members(atWord:)) : nil
            if let known = KnownStorage.container(module: descriptor.moduleName, name: descriptor.name) {
                if let knownKind = known.kind { kind = knownKind }
                let level = KnownContainerLevel(
                    metadata: metadata, level: level, genericArguments: genericArguments, values: values)
                switch known.tail(level) {
                case .none: break
                case .tail(let plan): tail = plan
                case .unreadable(let reason): unreadable.append(reason)
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
            let offsets = ClassMetadata(level).members(atWord: vectorOffset)
            for (index, record) in fields.records.prefix(count).enumerated() {
                let offset = Int(offsets.word(at: index * 8))
                slots += values.fieldSlots(
                    record: record, offset: offset, context: descriptorPointer, genericArguments: genericArguments)
            }
        }
        if kind == .class, let leaf = ClassMetadata(metadata).descriptor,
            leaf.moduleName == "Swift", leaf.name.hasPrefix("_")
        {
            kind = .other  // runtime-internal storage: strings, empty singletons, bridging classes
        }
        if let canary = continuationCanaryPlan(metadata, typeName: typeName) {
            return canary
        }
        let plan = ObjectPlan(kind: kind, typeName: typeName, slots: slots, tail: tail, unreadable: unreadable)
        if let leaf = ClassMetadata(metadata).descriptor, ["Swift", "_Concurrency"].contains(leaf.moduleName),
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
            kind: .box, typeName: name,
            slots: values.slots(of: boxed).map { $0.shifted(by: offset, under: [.boxValue]) })
    }
}
