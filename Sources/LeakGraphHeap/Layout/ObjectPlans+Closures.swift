import CLeakGraphMetadata
import LeakGraphModel

/// The layout of a value: its reference slots (offsets from its start), its size and alignment, and its
/// type's name as reports show it.
typealias ValueLayout = (slots: [Slot], size: Int, alignment: Int, typeName: String)

extension ObjectPlans {
    // MARK: Closure contexts

    /// The plan of a closure context (metadata kind 0x400), from its capture descriptor.
    ///
    /// A context whose capture types mention no generic parameter is laid out once, here. One that
    /// mentions them is laid out per object when its layout depends on them (its bindings, or what its
    /// captured objects' classes say of them: ``genericCaptureSlots(_:object:size:)``); when every capture can
    /// be read without them (a function value, a class reference, a tuple of such things), once here too.
    func closureContextPlan(_ metadata: UnsafeRawPointer) -> ObjectPlan {
        let firstCapture = Int(metadata.uint32(at: 8))
        guard let descriptor = metadata.pointer(at: 16) else {
            return ObjectPlan(
                kind: .closureContext, typeName: "(closure context)", slots: [],
                unreadable: ["closure context without capture descriptor"])
        }
        let captureCount = Int(descriptor.uint32(at: 0))
        let bindingCount = Int(descriptor.uint32(at: 8))
        let contextName = "(closure context, \(captureCount) capture\(captureCount == 1 ? "" : "s"))"
        if let generic = GenericClosurePlan(metadata: metadata, descriptor: descriptor) {
            if bindingCount == 0 {
                // Nothing stored in the context names a parameter: read it without them if it can be.
                var solver = CaptureSolver(plans: self, generic: generic, known: [])
                let layout = solver.run(object: nil)
                if layout.unreadable == nil || !solver.canLearnFromObjects {
                    let plan = ObjectPlan(
                        kind: .closureContext, typeName: contextName, slots: layout.slots,
                        unreadable: layout.unreadable.map { [$0] } ?? [])
                    if layout.unreadable == nil { plan.captureEnd = solver.end }
                    if captureCount == 1, layout.unreadable == nil, let capture = generic.captures.first,
                        capture.name.referenceStorage == .none
                    {
                        plan.boxedTypeName = readable(capture.name)
                    }
                    return plan
                }
            }
            let plan = ObjectPlan(
                kind: .closureContext, typeName: contextName, slots: [], tail: .genericCaptures(generic))
            if captureCount == 1, let capture = generic.captures.first, capture.name.referenceStorage == .none {
                // A box of a value of a generic type (an existential's too large value): named by its type.
                plan.boxedTypeName = readable(capture.name)
            }
            return plan
        }
        if Int(descriptor.uint32(at: 4)) > 0 || bindingCount > 0 {
            return ObjectPlan(
                kind: .closureContext, typeName: contextName, slots: [],
                unreadable: ["generic closure context whose capture descriptor could not be read"])
        }
        var captures: [GenericClosurePlan.Capture] = []
        for index in 0..<captureCount {
            guard let name = descriptor.relativeDirect(at: 12 + index * 4).map(MangledName.init) else { break }
            captures.append(.init(name: name, tree: MangledTypeTree.parse(name)))
        }
        var solver = CaptureSolver(plans: self, captures: captures, start: firstCapture)
        var layout = solver.run(object: nil)
        if captures.count < captureCount, layout.unreadable == nil {
            layout.unreadable = "capture[\(captures.count)]: no type"
        }
        let plan = ObjectPlan(
            kind: .closureContext, typeName: contextName, slots: layout.slots,
            unreadable: layout.unreadable.map { [$0] } ?? [])
        if layout.unreadable == nil { plan.captureEnd = solver.end }
        if captureCount == 1, layout.unreadable == nil, let capture = captures.first {
            // Boxes of fixed-layout values (captured vars, indirect payloads, boxed existentials) have
            // this very shape; the walk tells them apart by how they are referenced.
            plan.boxedTypeName =
                capture.name.resolve(context: nil, genericArguments: nil).map { typeName(of: $0) }
                ?? capture.tree.flatMap { solver.layout($0, in: capture.name)?.typeName }
                ?? (capture.name.referenceStorage == .weak ? "weak reference" : "value")
        }
        return plan
    }

    /// The capture slots of one generic closure context object, from the bindings stored in it and the
    /// classes of the objects it captures; `size` is the object's allocated size (0: unknown).
    ///
    /// Contexts of one closure share a few shapes: what decides a layout is read in a fixed order (the
    /// words where the bindings are, the size, then, one capture at a time, the class of a captured
    /// object or a captured metatype) and the layouts are kept in a tree keyed by what was read so far, so
    /// an object costs a handful of word reads once its shape has been seen.
    ///
    /// Every binding a source names must be type metadata (read without a fault) before the runtime is
    /// given it. An
    /// `@isolated(any)` closure (a `Task`'s operation) made in a generic function stores its isolation,
    /// an `(any Actor)?`, in the 16 bytes where its capture descriptor puts the bindings, and the bindings
    /// right after (measured on Swift 6.3.1; the descriptor does not say so — a non-generic one lists the
    /// isolation as its first capture): when the bindings are not metadata there but are 16 bytes on, and
    /// the captures laid out from there end exactly at the allocated size, the context is read so (its
    /// isolation is not read: the actor it names counts as held).
    func genericCaptureSlots(_ plan: GenericClosurePlan, object: UnsafeRawPointer, size: Int = 0)
        -> (slots: [Slot], unreadable: String?, end: CaptureEnd?)
    {
        var key = [UInt(bitPattern: plan.metadata), UInt(size)]
        for index in 0..<(plan.bindingCount + 2) { key.append(object.word(at: plan.firstCapture + index * 8)) }
        let start = key
        while let step = captureSchedule[key] {
            switch step {
            case .done(let slots, let unreadable, let end): return (slots, unreadable, end)
            case .read(let offset, let metatype):
                key.append(CaptureSolver.derivationWord(object, offset: offset, metatype: metatype))
            }
        }
        // Not seen yet: lay this object out and remember every step taken.
        var solver: CaptureSolver
        var layout: (slots: [Slot], unreadable: String?)
        var shifted = false
        if Self.holdsMetadata(object + plan.firstCapture, at: plan.metadataBindings) {
            solver = CaptureSolver(plans: self, generic: plan, known: [], bindingOffset: plan.firstCapture)
            solver.bind(from: object + plan.firstCapture)
            layout = solver.run(object: object)
        } else if size > 0, Self.holdsIsolation(object + plan.firstCapture),
            Self.holdsMetadata(object + plan.firstCapture + 16, at: plan.metadataBindings)
        {
            shifted = true
            solver = CaptureSolver(plans: self, generic: plan, known: [], bindingOffset: plan.firstCapture + 16)
            solver.bind(from: object + plan.firstCapture + 16)
            layout = solver.run(object: object)
            if layout.unreadable == nil, !ReferenceScanner.fits(solver.end, size: size) {
                layout = (
                    [],
                    "closure bindings are not type metadata where the capture descriptor puts them, "
                        + "nor laid out as an @isolated(any) closure's: not read"
                )
            }
        } else {
            solver = CaptureSolver(plans: self, generic: plan, known: [], bindingOffset: plan.firstCapture)
            layout = ([], "closure bindings are not type metadata where the capture descriptor puts them: not read")
        }
        var path = start
        for read in solver.reads {
            captureSchedule[path] = .read(offset: read.offset, metatype: read.metatype)
            path.append(read.word)
        }
        let end = layout.unreadable == nil && !shifted ? solver.end : nil
        captureSchedule[path] = .done(layout.slots, layout.unreadable, end)
        return (layout.slots, layout.unreadable, end)
    }

    /// Whether the bindings at `bindings` that metadata sources name (`indices`; the others are witness
    /// tables) are each type metadata: a nonzero aligned pointer to a kind the runtime defines (or a
    /// class's), whose value witness table (the word before it) gives a size and an alignment a type can
    /// have — all read without a fault.
    static func holdsMetadata(_ bindings: UnsafeRawPointer, at indices: [Int]) -> Bool {
        for index in indices {
            let word = bindings.word(at: index * 8)
            guard word != 0, word & 7 == 0, let metadata = UnsafeRawPointer(bitPattern: word) else { return false }
            var kind: UInt = 0
            var witnesses: UInt = 0
            guard lg_read_word(metadata, &kind), lg_read_word(metadata - 8, &witnesses), witnesses != 0,
                let table = UnsafeRawPointer(bitPattern: witnesses)
            else { return false }
            guard kind > 0x7FF || MetadataKind(rawValue: kind) != nil else { return false }
            var size: UInt = 0
            var flags: UInt = 0
            guard lg_read_word(table + 64, &size), lg_read_word(table + 80, &flags), size < 1 << 32,
                flags & 0xFF < 64
            else { return false }
        }
        return true
    }

    /// Whether the two words at `address` can be an `(any Actor)?`: nil, or an object (its first word
    /// readable) and a witness table.
    static func holdsIsolation(_ address: UnsafeRawPointer) -> Bool {
        let object = address.word(at: 0)
        let table = address.word(at: 8)
        if object == 0 { return table == 0 }
        var isa: UInt = 0
        guard table != 0, let pointer = UnsafeRawPointer(bitPattern: object) else { return false }
        return lg_read_word(pointer, &isa) && isa != 0
    }

    /// One node of ``genericCaptureSlots(_:object:size:)``'s tree.
    enum CaptureStep {
        /// Read the word that decides the next step: the class of the object captured at `offset` (0 for
        /// nil), or the metatype captured there.
        case read(offset: Int, metatype: Bool)
        /// The layout: its slots, why the rest was not read, and the offset after the last capture when all
        /// were laid out.
        case done([Slot], String?, CaptureEnd?)
    }

    /// Type metadata for part `range` of `name`, resolved with `arguments` for the environment `context`
    /// (nil: none), remembered (failures too).
    func resolve(_ name: MangledName, part range: Range<Int>, context: UnsafeRawPointer?, arguments: [UInt])
        -> UnsafeRawPointer?
    {
        var key = [UInt(bitPattern: name.start + range.lowerBound), UInt(range.count)]
        key += arguments
        if let known = resolutions[key] { return UnsafeRawPointer(bitPattern: known) }
        let type = arguments.withUnsafeBufferPointer { buffer in
            name.resolve(
                part: range, context: context,
                genericArguments: buffer.isEmpty ? nil : UnsafeRawPointer(buffer.baseAddress))
        }
        resolutions[key] = type.map { UInt(bitPattern: $0) } ?? 0
        return type
    }

    /// `Optional<() -> ()>`: how every optional thick function is laid out, whatever its signature (`nil` is
    /// a null function pointer).
    var optionalClosure: UnsafeRawPointer? {
        if let optionalClosureMetadata { return optionalClosureMetadata }
        let text = Array("yycSg".utf8)
        optionalClosureMetadata = text.withUnsafeBytes { MangledName.resolveText($0.baseAddress!, length: $0.count) }
        return optionalClosureMetadata
    }

    // MARK: Diagnostics

    /// A mangled name as a diagnostic shows it: demangled as a type when the runtime's demangler reads it
    /// (`Swift.Optional<@escaping @callee_guaranteed (@in_guaranteed A) -> ()>`), else raw with each
    /// symbolic reference replaced by the name of the type it refers to, in angle brackets
    /// (`SS4name_Ieg_3run<Fixture.Step>4nextt`), or `<ref>`; the same name always reads the same, so
    /// diagnostics group by it.
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
                let resolved =
                    index + 5 <= bytes.count
                    ? name.resolve(part: index..<(index + 5), context: nil, genericArguments: nil) : nil
                result +=
                    "<" + (resolved.map { typeName(of: $0) } ?? Self.descriptorName(name, at: index) ?? "ref") + ">"
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

    /// The qualified name of the context descriptor a symbolic reference at `index` of `name` refers to
    /// (`Fixture.NS.Auto.Side`, anonymous contexts left out), for one that does not resolve on its own (a
    /// generic type).
    private static func descriptorName(_ name: MangledName, at index: Int) -> String? {
        let kind = name.start.load(fromByteOffset: index, as: UInt8.self)
        let field = name.start + index + 1
        var target = field + Int(field.int32(at: 0))
        if kind == 0x02 {
            guard let pointer = target.pointer(at: 0) else { return nil }
            target = pointer
        } else if kind != 0x01 {
            return nil
        }
        var parts: [String] = []
        var context: ContextDescriptor? = ContextDescriptor(base: target)
        for _ in 0..<16 {
            guard let current = context else { break }
            if current.kind == .module || (current.kind.map { $0.rawValue >= 16 } ?? false) {
                parts.append(current.name)
            }
            context = current.parent
        }
        return parts.isEmpty ? nil : parts.reversed().joined(separator: ".")
    }

    /// The name reports show for a type.
    func typeName(of metadata: UnsafeRawPointer) -> String {
        values.typeName(metadata)
    }
}

/// Lays out the captures of one closure context in order, each at its alignment, from what is known of
/// the context's generic parameters; learns more of them from captured objects' classes when a capture
/// cannot be laid out without them.
///
/// A capture is laid out by the runtime (its type resolved in the context's generic environment) when
/// every parameter it mentions is known, and otherwise by shape when its layout does not depend on them:
/// a function value of any signature is a function pointer and a strong context (a thin one a pointer), an
/// `Optional` of one is laid out as `Optional<() -> ()>`, a class reference is one strong pointer whatever
/// its generic arguments, `weak`/`unowned` storage one word, a thick metatype one word, a tuple of such
/// things element by element. It stops at the first capture it cannot lay out exactly: later offsets would
/// be guesses.
struct CaptureSolver {
    let plans: ObjectPlans
    let captures: [GenericClosurePlan.Capture]
    let generic: GenericClosurePlan?
    /// Per parameter of ``generic`` (its ``GenericClosurePlan/parameters`` order): its metadata, or 0.
    var known: [UInt]
    /// The words read from the object to learn parameters, in order (see ``ObjectPlans/CaptureStep``).
    var reads: [(offset: Int, metatype: Bool, word: UInt)] = []
    private var slots: [Slot] = []
    /// The offset after the last capture placed.
    private var offset: Int
    /// The largest alignment of a capture placed (a word at least: the header's).
    private var alignment = 8

    /// Where the captures placed end.
    var end: CaptureEnd { CaptureEnd(offset: offset, rounded: align(offset, to: alignment)) }
    /// Captures laid out so far: index and offset.
    private var placed: [(index: Int, offset: Int)] = []
    /// Captures already read to learn parameters.
    private var consulted = Set<Int>()
    /// Why the parameters read disagree, once they do.
    private var conflict: String?

    init(plans: ObjectPlans, generic: GenericClosurePlan, known: [UInt], bindingOffset: Int? = nil) {
        self.plans = plans
        self.generic = generic
        captures = generic.captures
        self.known = known.isEmpty ? [UInt](repeating: 0, count: generic.parameters.count) : known
        offset = (bindingOffset ?? generic.firstCapture) + generic.bindingCount * 8
    }

    init(plans: ObjectPlans, captures: [GenericClosurePlan.Capture], start: Int) {
        self.plans = plans
        self.captures = captures
        generic = nil
        known = []
        offset = start
    }

    /// Whether a capture of this context could teach a parameter (an object of a generic class, a
    /// metatype of a generic type): when the plan-time layout gets stuck, objects may still be read.
    var canLearnFromObjects: Bool {
        captures.contains { Self.derivationRoot($0) != nil }
    }

    /// Learns what the closure bindings (stored at `bindings`) say: each binding source's type matched
    /// against the metadata stored for it.
    mutating func bind(from bindings: UnsafeRawPointer) {
        guard let generic else { return }
        for source in generic.bindingSources {
            let metadata = bindings.word(at: source.binding * 8)
            guard metadata != 0, let pointer = UnsafeRawPointer(bitPattern: metadata) else { continue }
            _ = match(source.type, pointer)
        }
    }

    /// Lays out every capture (reading `object`, when given, to learn parameters); the slots found, and why
    /// the rest could not be read.
    mutating func run(object: UnsafeRawPointer?) -> (slots: [Slot], unreadable: String?) {
        if let conflict { return ([], conflict) }
        var index = 0
        while index < captures.count {
            if let reason = place(index) {
                guard let object, learn(from: object) else {
                    return (slots, conflict ?? "capture[\(index)]: \(reason)")
                }
                continue
            }
            index += 1
        }
        return (slots, nil)
    }

    /// Places capture `index` at the next offset; `nil` when placed, else why not.
    private mutating func place(_ index: Int) -> String? {
        let capture = captures[index]
        let path: ReferencePath = [.capture(index)]
        let storage = capture.name.referenceStorage
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
            slots.append(
                Slot(offset: offset, path: storage == .box ? path.appending(.captureBox) : path, content: content))
            placed.append((index, offset))
            offset += 8
            return nil
        case .none:
            break
        }
        let layout: ValueLayout?
        if let tree = capture.tree {
            layout = self.layout(tree, in: capture.name)
        } else if let type = resolveWhole(capture.name) {
            layout = metadataLayout(type)
        } else {
            layout = nil
        }
        guard let layout else {
            let missing = missingParameters(capture)
            let type = plans.readable(capture.name)
            guard missing.isEmpty else {
                let names = missing.map(\.text).joined(separator: ", ")
                return "capture type \(type) depends on generic parameter\(missing.count == 1 ? "" : "s") \(names), "
                    + "which no binding or captured object gives"
            }
            return "capture type \(type) could not be resolved"
        }
        offset = align(offset, to: layout.alignment)
        alignment = max(alignment, layout.alignment)
        slots += layout.slots.map { $0.shifted(by: offset, under: path) }
        placed.append((index, offset))
        offset += layout.size
        return nil
    }

    /// The parameters a capture mentions whose metadata is not known.
    private func missingParameters(_ capture: GenericClosurePlan.Capture) -> [GenericParameter] {
        guard let generic, let tree = capture.tree else { return [] }
        return tree.parameters.filter { known[generic.position[$0]!] == 0 }.sorted()
    }

    /// The whole name resolved by the runtime, when every parameter of the context is known (a name the
    /// parser does not split).
    private func resolveWhole(_ name: MangledName) -> UnsafeRawPointer? {
        guard !known.contains(0) else { return nil }
        let length = name.length - (name.referenceStorage == .none ? 0 : 2)
        return plans.resolve(name, part: 0..<length, context: generic?.context, arguments: known)
    }

    // MARK: Layouts

    /// Where the generic parameters of a type node are given: the closure's own (``known``), or, for a
    /// field of a generic struct being laid out by shape, that struct's arguments — nodes of the name one
    /// scope out.
    final class Scope {
        let name: MangledName
        /// The struct whose field this is: its descriptor, the cumulative parameter counts of its generic
        /// levels, its arguments (flattened) and the scope they belong to.
        let nominal: (descriptor: UnsafeRawPointer, levels: [Int], arguments: [MangledTypeTree.Node], outer: Scope)?
        let depth: Int

        init(name: MangledName) {
            self.name = name
            nominal = nil
            depth = 0
        }

        init(
            name: MangledName, descriptor: UnsafeRawPointer, levels: [Int], arguments: [MangledTypeTree.Node],
            outer: Scope
        ) {
            self.name = name
            nominal = (descriptor, levels, arguments, outer)
            depth = outer.depth + 1
        }
    }

    /// The layout of `node`, part of `name` (a capture's type).
    func layout(_ node: MangledTypeTree.Node, in name: MangledName) -> ValueLayout? {
        layout(node, in: Scope(name: name))
    }

    /// The layout of `node`, part of `scope`'s name: by the runtime when it can resolve it (every parameter
    /// it mentions known), else by shape when the layout does not depend on what is unknown; `nil`
    /// otherwise.
    func layout(_ node: MangledTypeTree.Node, in scope: Scope) -> ValueLayout? {
        if isRuntimeShape(node.shape), let type = metadata(of: node, in: scope) {
            return metadataLayout(type)
        }
        switch node.shape {
        case .function(let representation):
            switch representation {
            case .thick: return ([Slot(offset: 0, path: .empty, content: .thickFunction)], 16, 8, "closure")
            case .noescape: return ([], 16, 8, "non-escaping closure")  // its context is not owned
            case .thin: return ([], 8, 8, "function pointer")
            case .block: return ([Slot(offset: 0, path: .empty, content: .block)], 8, 8, "block")
            }
        case .optional(let wrapped):
            switch wrapped.shape {
            case .function(.thick), .function(.noescape):
                // Laid out as `Optional<() -> ()>`: every thick function is a function pointer and a context,
                // and `nil` is a null function pointer, whatever the signature.
                guard let type = plans.optionalClosure else { return nil }
                let witnesses = ValueWitnesses(of: type)
                return (plans.values.slots(of: type), witnesses.size, witnesses.alignment, "optional closure")
            case .function(.thin): return ([], 8, 8, "optional function pointer")
            case .function(.block): return ([Slot(offset: 0, path: .empty, content: .block)], 8, 8, "optional block")
            case .bound(let nominal, _) where nominal.isClass, .nominal(let nominal) where nominal.isClass:
                // `nil` is 0.
                return (
                    [Slot(offset: 0, path: .empty, content: .reference(.strong))], 8, 8, Self.nominalName(nominal) + "?"
                )
            case .parameter(let parameter):
                guard let argument = argument(parameter, in: scope) else { return nil }
                return layout(
                    MangledTypeTree.Node(
                        start: argument.node.start, end: argument.node.end, resolvable: nil,
                        shape: .optional(argument.node),
                        parameters: argument.node.parameters),
                    in: argument.scope)
            default:
                return nil
            }
        case .bound(let nominal, _) where nominal.isClass, .nominal(let nominal) where nominal.isClass:
            // A class reference needs no metadata to copy or destroy: one strong pointer, whatever the
            // generic arguments.
            return ([Slot(offset: 0, path: .empty, content: .reference(.strong))], 8, 8, Self.nominalName(nominal))
        case .bound(.descriptor(let descriptor), let arguments):
            return structLayout(descriptor, arguments: arguments, in: scope)
        case .parameter(let parameter):
            guard let argument = argument(parameter, in: scope) else { return nil }
            return layout(argument.node, in: argument.scope)
        case .storage(let storage, _):
            let content: SlotContent
            switch storage {
            case .weak: content = .weakReference
            case .unowned: content = .reference(.unowned)
            case .unownedUnsafe: content = .reference(.unmanaged)
            case .none, .box: return nil
            }
            return ([Slot(offset: 0, path: .empty, content: content)], 8, 8, "reference")
        case .metatype(_, let thick):
            return thick ? ([], 8, 8, "metatype") : ([], 0, 1, "metatype")
        case .tuple(let elements):
            var slots: [Slot] = []
            var offset = 0
            var alignment = 1
            var names: [String] = []
            for (index, element) in elements.enumerated() {
                guard let part = layout(element.node, in: scope) else { return nil }
                offset = align(offset, to: part.alignment)
                let label = element.label ?? String(index)
                slots += part.slots.map { $0.shifted(by: offset, under: [.tupleElement(label)]) }
                offset += part.size
                alignment = max(alignment, part.alignment)
                names.append(element.label.map { "\($0): \(part.typeName)" } ?? part.typeName)
            }
            return (slots, offset, alignment, "(" + names.joined(separator: ", ") + ")")
        case .nominal, .bound, .other:
            return nil
        }
    }

    /// A generic struct laid out field by field, as Swift lays out structs (in declaration order, each
    /// field at its alignment), when its arguments are not all known: each field's type is laid out in a
    /// scope where the struct's parameters are its arguments (`SignalProducer<Value, Error>`, whose one
    /// field is a class reference, is one pointer whatever `Value` is). Only structs whose every field the
    /// reflection metadata lists, not more than 8 levels deep.
    private func structLayout(
        _ descriptor: UnsafeRawPointer, arguments: [MangledTypeTree.Node], in scope: Scope
    ) -> ValueLayout? {
        let context = ContextDescriptor(base: descriptor)
        guard context.kind == .struct, scope.depth < 8, context.plainGenericParameterCount == arguments.count,
            let levels = context.genericParameterLevels, levels.last == arguments.count,
            let fields = context.fieldDescriptor
        else { return nil }
        let count = context.structNumFields
        let records = fields.records
        guard records.count == count else { return nil }
        let hidesInternals = context.moduleName == "Swift"
        var slots: [Slot] = []
        var offset = 0
        var alignment = 1
        for record in records {
            guard let fieldName = record.mangledTypeName, let tree = MangledTypeTree.parse(fieldName) else {
                return nil
            }
            let fieldScope = Scope(
                name: fieldName, descriptor: descriptor, levels: levels, arguments: arguments, outer: scope)
            guard let part = layout(tree, in: fieldScope) else { return nil }
            offset = align(offset, to: part.alignment)
            let path: ReferencePath = hidesInternals ? [.storage] : [.property(ValueLayouts.propertyName(record.name))]
            slots += part.slots.map { $0.shifted(by: offset, under: path) }
            offset += part.size
            alignment = max(alignment, part.alignment)
        }
        return (slots, offset, alignment, context.moduleName + "." + context.name)
    }

    /// The node (and its scope) a struct's parameter stands for in `scope`; `nil` in the closure's own scope.
    private func argument(_ parameter: GenericParameter, in scope: Scope) -> (node: MangledTypeTree.Node, scope: Scope)?
    {
        guard let nominal = scope.nominal, parameter.depth < nominal.levels.count else { return nil }
        let position = (parameter.depth > 0 ? nominal.levels[parameter.depth - 1] : 0) + parameter.index
        guard
            parameter.index < nominal.levels[parameter.depth]
                - (parameter.depth > 0 ? nominal.levels[parameter.depth - 1] : 0),
            position < nominal.arguments.count
        else { return nil }
        return (nominal.arguments[position], nominal.outer)
    }

    /// Type metadata for `node` when the runtime can build it: every parameter it mentions known — the
    /// closure's from ``known``, a struct's from its arguments, themselves resolved one scope out.
    private func metadata(of node: MangledTypeTree.Node, in scope: Scope) -> UnsafeRawPointer? {
        guard let range = node.resolvable else { return nil }
        if node.parameters.isEmpty {
            return plans.resolve(scope.name, part: range, context: nil, arguments: [])
        }
        guard let nominal = scope.nominal else {
            guard let generic else { return nil }
            for parameter in node.parameters {
                guard let position = generic.position[parameter], known[position] != 0 else { return nil }
            }
            return plans.resolve(scope.name, part: range, context: generic.context, arguments: arguments(generic))
        }
        // A field's type in its struct's context, with the struct's arguments (only for a struct whose
        // generic arguments are its parameters alone, no witness tables).
        guard ContextDescriptor(base: nominal.descriptor).genericKeyArgumentCount == nominal.arguments.count else {
            return nil
        }
        var arguments: [UInt] = []
        for argument in nominal.arguments {
            guard isRuntimeShape(argument.shape), let type = metadata(of: argument, in: nominal.outer) else {
                return nil
            }
            arguments.append(UInt(bitPattern: type))
        }
        return plans.resolve(scope.name, part: range, context: nominal.descriptor, arguments: arguments)
    }

    /// Shapes the runtime can build metadata for (no lowered function types, SIL metatypes or storage).
    private func isRuntimeShape(_ shape: MangledTypeTree.Shape) -> Bool {
        switch shape {
        case .parameter, .nominal, .bound, .other: return true
        case .optional(let wrapped): return isRuntimeShape(wrapped.shape)
        case .tuple(let elements): return elements.allSatisfy { isRuntimeShape($0.node.shape) }
        case .function, .metatype, .storage: return false
        }
    }

    /// The environment's arguments: the known parameters' metadata, the empty tuple's for the others (never
    /// read: only names whose parameters are all known are resolved).
    private func arguments(_ generic: GenericClosurePlan?) -> [UInt] {
        guard generic != nil else { return [] }
        let placeholder = UInt(bitPattern: plans.emptyTuple)
        return known.map { $0 == 0 ? placeholder : $0 }
    }

    private func metadataLayout(_ type: UnsafeRawPointer) -> ValueLayout {
        let witnesses = ValueWitnesses(of: type)
        return (plans.values.slots(of: type), witnesses.size, witnesses.alignment, plans.typeName(of: type))
    }

    private static func nominalName(_ nominal: MangledTypeTree.Nominal) -> String {
        guard case .descriptor(let descriptor) = nominal else { return "object" }
        let context = ContextDescriptor(base: descriptor)
        return context.moduleName + "." + context.name
    }

    // MARK: Learning parameters from captured objects

    /// What a capture can teach: its type is an object of a generic class (optionally `Optional`), or a thick
    /// metatype of a generic nominal type; the descriptor, its arguments, and whether it is a metatype.
    private static func derivationRoot(_ capture: GenericClosurePlan.Capture)
        -> (descriptor: UnsafeRawPointer, arguments: [MangledTypeTree.Node], metatype: Bool)?
    {
        guard capture.name.referenceStorage == .none, var node = capture.tree else { return nil }
        var metatype = false
        if case .optional(let wrapped) = node.shape { node = wrapped }
        if case .metatype(let instance, thick: true) = node.shape {
            node = instance
            metatype = true
        }
        guard case .bound(.descriptor(let descriptor), let arguments) = node.shape, !node.parameters.isEmpty else {
            return nil
        }
        switch ContextDescriptor(base: descriptor).kind {
        case .class?: break
        case .struct?, .enum?: guard metatype else { return nil }
        default: return nil
        }
        return (descriptor, arguments, metatype)
    }

    /// Reads, from a capture laid out so far that has not been read yet, what it says of the unknown
    /// parameters; true when one became known.
    private mutating func learn(from object: UnsafeRawPointer) -> Bool {
        guard let generic else { return false }
        for (index, captureOffset) in placed where !consulted.contains(index) {
            let capture = captures[index]
            guard let root = Self.derivationRoot(capture),
                root.arguments.contains(where: { !$0.parameters.allSatisfy { known[generic.position[$0]!] != 0 } })
            else { continue }
            consulted.insert(index)
            let word = Self.derivationWord(object, offset: captureOffset, metatype: root.metatype)
            reads.append((captureOffset, root.metatype, word))
            guard word > 1, let metadata = UnsafeRawPointer(bitPattern: word) else { continue }
            let before = known
            guard
                let level = Self.level(
                    of: metadata, describedBy: root.descriptor,
                    exact: root.metatype
                        && ContextDescriptor(base: root.descriptor).kind != .class)
            else {
                conflict =
                    "capture[\(index)]: the captured \(root.metatype ? "metatype" : "object") is not of its capture type"
                return false
            }
            guard matchArguments(root.arguments, of: root.descriptor, in: level) else { return false }
            if known != before { return true }
        }
        return false
    }

    /// The word that decides what a capture teaches: for an object, its class (its first word, read
    /// without a fault; 0 for nil, 1 when unreadable); for a metatype, the metatype itself.
    static func derivationWord(_ object: UnsafeRawPointer, offset: Int, metatype: Bool) -> UInt {
        let word = object.word(at: offset)
        guard !metatype, word != 0 else { return word }
        var isa: UInt = 0
        guard let captured = UnsafeRawPointer(bitPattern: word), lg_read_word(captured, &isa), isa > 1 else { return 1 }
        return isa
    }

    /// The metadata of `descriptor`'s type in `metadata`: itself (`exact`, or a struct's or an enum's), or
    /// the level of a class's superclass chain whose descriptor it is (read without a fault: the class of
    /// a captured object is only trusted once its chain reaches the capture type's class).
    private static func level(of metadata: UnsafeRawPointer, describedBy descriptor: UnsafeRawPointer, exact: Bool)
        -> UnsafeRawPointer?
    {
        if exact {
            var kind: UInt = 0
            var levelDescriptor: UInt = 0
            guard lg_read_word(metadata, &kind), [0x200, 0x201, 0x202].contains(kind),
                lg_read_word(metadata + 8, &levelDescriptor)
            else { return nil }
            return levelDescriptor == UInt(bitPattern: descriptor) ? metadata : nil
        }
        var current: UnsafeRawPointer? = metadata
        for _ in 0..<64 {
            guard let level = current else { return nil }
            var kind: UInt = 0
            var levelDescriptor: UInt = 0
            var superclass: UInt = 0
            guard lg_read_word(level, &kind), kind == 0 || kind > 0x7FF,
                lg_read_word(level + 40, &levelDescriptor), lg_read_word(level + 8, &superclass)
            else { return nil }
            if levelDescriptor == UInt(bitPattern: descriptor) { return level }
            current = UnsafeRawPointer(bitPattern: superclass)
        }
        return nil
    }

    /// Matches a bound generic type's arguments against the generic arguments `metadata` (of the type
    /// `descriptor` describes) stores: false when they disagree with what is known.
    private mutating func matchArguments(
        _ arguments: [MangledTypeTree.Node], of descriptor: UnsafeRawPointer, in metadata: UnsafeRawPointer
    ) -> Bool {
        let context = ContextDescriptor(base: descriptor)
        guard context.plainGenericParameterCount == arguments.count, let stored = context.genericArguments(in: metadata)
        else {
            return true  // nothing learnt: generic parameters this walk does not map to arguments
        }
        for (index, argument) in arguments.enumerated() {
            guard let type = stored.pointer(at: index * 8), match(argument, type) else { return false }
        }
        return true
    }

    /// Learns the parameters `node` spells from `metadata`, the exact metadata of the type it names (a
    /// generic argument or a binding): a parameter is that metadata; a bound generic nominal type, an
    /// `Optional` or a tuple is matched part by part. False when something disagrees (a parameter already
    /// known as another type, a type of another shape).
    private mutating func match(_ node: MangledTypeTree.Node, _ metadata: UnsafeRawPointer) -> Bool {
        guard let generic else { return true }
        switch node.shape {
        case .parameter(let parameter):
            guard let position = generic.position[parameter] else { return true }
            let word = UInt(bitPattern: metadata)
            if known[position] == 0 {
                known[position] = word
            } else if known[position] != word {
                conflict = "generic parameter \(parameter.text) is given two different types"
                return false
            }
            return true
        case .bound(.descriptor(let descriptor), let arguments):
            guard !node.parameters.isEmpty else { return true }
            let kind = ContextDescriptor(base: descriptor).kind
            guard kind == .class || kind == .struct || kind == .enum else { return true }
            let descriptorOffset: Int
            switch MetadataKind(of: metadata) {
            case .class?: descriptorOffset = ClassMetadata.descriptorOffset
            case .struct?, .enum?, .optional?: descriptorOffset = ValueMetadata.descriptorOffset
            default: descriptorOffset = -1
            }
            guard descriptorOffset >= 0, (kind == .class) == (descriptorOffset == ClassMetadata.descriptorOffset),
                metadata.pointer(at: descriptorOffset) == descriptor
            else {
                conflict = "a generic argument is not of the type its capture names"
                return false
            }
            return matchArguments(arguments, of: descriptor, in: metadata)
        case .optional(let wrapped):
            guard !node.parameters.isEmpty else { return true }
            guard MetadataKind(of: metadata) == .optional, let payload = metadata.pointer(at: 16) else {
                conflict = "a generic argument is not the Optional its capture names"
                return false
            }
            return match(wrapped, payload)
        case .tuple(let elements):
            guard !node.parameters.isEmpty else { return true }
            guard MetadataKind(of: metadata) == .tuple, Int(metadata.word(at: 8)) == elements.count else {
                conflict = "a generic argument is not the tuple its capture names"
                return false
            }
            for (index, element) in elements.enumerated() {
                guard let type = metadata.pointer(at: 24 + index * 16), match(element.node, type) else { return false }
            }
            return true
        default:
            return true
        }
    }
}
