import CLeakGraphMetadata
import LeakGraphModel

/// Reads the references stored in one object's memory by following its ``ObjectPlan``.
///
/// Every read is a raw load of words; enum payloads are projected on a private byte copy.
///
/// A scanner without ``paths`` finds the same references but hands every one the empty path and reads
/// no weak reference: the compact walk needs only strong targets, and building a path per array element
/// or enum payload, or reading a dictionary key, would cost time for nothing.
struct ReferenceScanner {
    /// Receives one reference: its path, ownership, target address, and whether the target is known
    /// to be a box (an `indirect` payload, a boxed existential value, a captured `var`).
    typealias Found = (_ path: ReferencePath, _ ownership: Ownership, _ target: UInt, _ targetIsBox: Bool) -> Void

    let plans: ObjectPlans
    /// Whether references carry their paths (and weak references are read).
    let paths: Bool

    /// Receives the task address of every raw continuation found (``SlotContent/continuation``), when set.
    let continuationFound: ((UInt) -> Void)?

    init(plans: ObjectPlans, paths: Bool = true, continuationFound: ((UInt) -> Void)? = nil) {
        self.plans = plans
        self.paths = paths
        self.continuationFound = continuationFound
    }

    /// `path` followed by `step`, or the empty path when paths are not wanted.
    private func extend(_ path: ReferencePath, _ step: PathStep) -> ReferencePath {
        paths ? path.appending(step) : .empty
    }

    /// The path of one step, or the empty path when paths are not wanted.
    private func onePath(_ step: PathStep) -> ReferencePath {
        paths ? [step] : .empty
    }

    /// Calls `found(path, ownership, targetAddress, targetIsBox)` for every reference inside the object at `object`,
    /// and `unreadable(reason)` when part of this particular object's layout could not be read.
    func scan(
        object: UnsafeRawPointer, plan: ObjectPlan, size: Int = 0, found: Found,
        unreadable: (String) -> Void = { _ in }
    ) {
        if let end = plan.captureEnd, !Self.fits(end, size: size) {
            unreadable(Self.misfit(end, size: size))
            return
        }
        scan(slots: plan.slots, at: object, prefix: .empty, found: found)
        guard let tail = plan.tail else { return }
        switch tail {
        case .arrayElements(let element, let start, let stride):
            guard !element.isEmpty else { return }
            let count = Int(bitPattern: object.word(at: 16))
            guard count > 0 else { return }
            for index in 0..<count {
                scan(
                    slots: element, at: object + start + index * stride, prefix: onePath(.element(index)), found: found)
            }
        case .dictionaryBuckets(let key, let keyStride, let value, let valueStride, let keyFormat):
            guard !key.isEmpty || !value.isEmpty else { return }
            guard let keys = object.pointer(at: 48), let values = object.pointer(at: 56) else { return }
            forEachOccupiedBucket(object, bitmapOffset: 64) { bucket in
                let keyAddress = keys + bucket * keyStride
                // Bucket numbers depend on the per-process hash seed: never put them in labels.
                let shown = paths ? KeyDescription.describe(keyAddress, format: keyFormat) : nil
                scan(slots: key, at: keyAddress, prefix: onePath(.dictionaryKey(shown)), found: found)
                scan(
                    slots: value, at: values + bucket * valueStride, prefix: onePath(.dictionaryValue(shown)),
                    found: found)
            }
        case .errorValue:
            // Linux `SwiftError` (no Objective-C interop): header, the value's type metadata, its Error
            // witness table, then the value aligned for its type.
            guard let type = object.pointer(at: 16) else { return }
            let witnesses = ValueWitnesses(of: type)
            scan(
                slots: plans.values.slots(of: type), at: object + align(32, to: witnesses.alignment),
                prefix: onePath(.errorValue), found: found)
        case .genericCaptures(let generic):
            let layout = plans.genericCaptureSlots(generic, object: object, size: size)
            if let end = layout.end, !Self.fits(end, size: size) {
                unreadable(Self.misfit(end, size: size))
                return
            }
            if let reason = layout.unreadable { unreadable(reason) }
            scan(slots: layout.slots, at: object, prefix: .empty, found: found)
        case .managedBufferElements(let element, let start, let stride, let count):
            guard !element.isEmpty else { return }
            // The elements that fit in the allocation: a count larger than that is no count.
            let capacity = (Int(lg_allocation_size(object)) - start) / stride
            let read = ManagedBufferElements.forEachInitialized(count, in: object, capacity: capacity) { index, slot in
                scan(slots: element, at: object + start + slot * stride, prefix: onePath(.element(index)), found: found)
            }
            if !read { unreadable("the header's element count does not fit the buffer") }
        case .keyPathBuffer(let headerOffset):
            switch KeyPathArguments.areas(of: object, headerOffset: headerOffset) {
            case .failure(let failure):
                unreadable(failure.reason)
            case .success(let areas):
                for area in areas {
                    let layout = plans.values.keyPathArgumentSlots(witnesses: area.witnesses, size: area.size)
                    if let reason = layout.unreadable { unreadable(reason) }
                    scan(slots: layout.slots, at: object + area.offset, prefix: .empty, found: found)
                }
            }
        case .taskClosure:
            let offset = lg_task_closure_context_offset(object)
            let status = lg_task_status_flags(object)
            guard offset >= 0, status & (LG_TASK_STATUS_RUNNING | LG_TASK_STATUS_COMPLETE) == 0,
                let context = object.pointer(at: offset)
            else { return }
            found(onePath(.taskClosure), .strong, UInt(bitPattern: context), false)
        case .setBuckets(let element, let stride):
            guard !element.isEmpty, let elements = object.pointer(at: 48) else { return }
            forEachOccupiedBucket(object, bitmapOffset: 56) { bucket in
                scan(slots: element, at: elements + bucket * stride, prefix: onePath(.setMember), found: found)
            }
        }
    }

    /// Visits the occupied buckets of native hashed storage: `_scale` at +32, bitmap words after the
    /// stored properties (+64 for `_DictionaryStorage`, +56 for `_SetStorage`).
    private func forEachOccupiedBucket(_ object: UnsafeRawPointer, bitmapOffset: Int, _ body: (Int) -> Void) {
        let scale = Int(object.load(fromByteOffset: 32, as: Int8.self))
        guard scale >= 0, scale < 48 else { return }
        let bucketCount = 1 << scale
        let wordCount = (bucketCount + 63) / 64
        for wordIndex in 0..<wordCount {
            var bits = object.word(at: bitmapOffset + wordIndex * 8)
            if bucketCount < 64 { bits &= (1 << UInt(bucketCount)) - 1 }
            while bits != 0 {
                let bit = bits.trailingZeroBitCount
                body(wordIndex * 64 + bit)
                bits &= bits - 1
            }
        }
    }

    func scan(slots: [Slot], at base: UnsafeRawPointer, prefix: ReferencePath, found: Found) {
        for slot in slots {
            let address = base + slot.offset
            // Shares the slot's own path (no copy) when there is no prefix, the common case.
            var path: ReferencePath { paths ? prefix.appending(slot.path) : .empty }
            switch slot.content {
            case .reference(let ownership):
                let target = address.word()
                if target != 0 { found(path, ownership, target, false) }
            case .boxReference:
                let target = address.word()
                if target != 0 { found(path, .strong, target, true) }
            case .continuation:
                let task = address.word()
                if task != 0 { continuationFound?(task) }
            case .bridgeObject:
                let word = address.word()
                if word != 0, word >> 60 == 0 { found(path, .strong, word, false) }
            case .weakReference:
                guard paths else { break }
                // A weak reference points at the target's side table entry, whose first word is the object.
                let sideTable = address.word()
                if sideTable != 0, let entry = UnsafeRawPointer(bitPattern: sideTable & ~UInt(0x7)) {
                    let target = entry.word()
                    if target != 0 { found(path, .weak, target, false) }
                }
            case .thickFunction:
                let context = address.word(at: 8)
                if context != 0 { found(extend(path, .closureContext), .strong, context, false) }
            case .block:
                let block = address.word()
                var context: UnsafeRawPointer?
                if block != 0,
                    lg_block_swift_context(UnsafeRawPointer(bitPattern: block), &context) == LG_BLOCK_CONTEXT,
                    let context
                {
                    found(extend(path, .closureContext), .strong, UInt(bitPattern: context), false)
                }
            case .classExistential:
                let target = address.word()
                if target != 0 { found(path, .strong, target, false) }
            case .opaqueExistential(let existentialName):
                scanOpaqueExistential(at: address, existentialName: existentialName, path: path, found: found)
            case .enumeration(let plan):
                scanEnum(plan, at: address, path: path, found: found)
            case .unreadable:
                break
            }
        }
    }

    private func scanOpaqueExistential(
        at address: UnsafeRawPointer, existentialName: String, path: ReferencePath, found: Found
    ) {
        guard let type = address.pointer(at: 24) else { return }
        let witnesses = ValueWitnesses(of: type)
        guard witnesses.isNonPOD else { return }
        let typeName = paths ? plans.values.typeName(type) : ""
        if witnesses.isNonInline {
            let box = address.word()
            if box != 0 {
                found(extend(path, .existentialBox(existential: existentialName, type: typeName)), .strong, box, true)
            }
        } else {
            scan(
                slots: plans.values.slots(of: type), at: address,
                prefix: extend(path, .existentialValue(type: typeName)),
                found: found)
        }
    }

    private func scanEnum(_ plan: EnumPlan, at address: UnsafeRawPointer, path: ReferencePath, found: Found) {
        let witnesses = ValueWitnesses(of: plan.metadata)
        guard let getTag = witnesses.getEnumTag, let project = witnesses.destructiveProjectEnumData else { return }
        withUnsafeTemporaryAllocation(byteCount: max(plan.size, 1), alignment: 16) { copy in
            guard let copyBase = copy.baseAddress else { return }
            copyBase.copyMemory(from: address, byteCount: plan.size)
            let tag = Int(lg_call_get_enum_tag(getTag, copyBase, plan.metadata))
            guard tag < plan.payloadCases.count else { return }
            let payloadCase = plan.payloadCases[tag]
            guard !payloadCase.slots.isEmpty else { return }
            lg_call_destructive_project(project, copyBase, plan.metadata)
            let casePath = paths ? Self.casePath(path, plan, payloadCase) : .empty
            if payloadCase.isIndirect {
                let box = UnsafeRawPointer(copyBase).word()
                if box != 0 { found(extend(casePath, .indirectPayload), .strong, box, true) }
            } else {
                scan(slots: payloadCase.slots, at: UnsafeRawPointer(copyBase), prefix: casePath, found: found)
            }
        }
    }

    /// `path` into the payload of `payloadCase`: `Optional`'s payload, or the named case's.
    private static func casePath(_ path: ReferencePath, _ plan: EnumPlan, _ payloadCase: EnumPlan.EnumCase)
        -> ReferencePath
    {
        path.appending(plan.isOptional ? .optionalPayload : .enumCase(payloadCase.name))
    }
}

extension ReferenceScanner {
    /// Whether a closure context's captures, laid out to `end` (and `end.rounded`, that end rounded up to
    /// the context's alignment), fit the size its allocation asked for: exactly one of the two, as the
    /// compiler and the runtime size contexts (measured on Swift 6.3.1: every context of the ReactiveSwift,
    /// RxSwift and OpenCombine test suites). `size` 0 is unknown (records made without the hook).
    static func fits(_ end: CaptureEnd, size: Int) -> Bool {
        size == 0 || size == end.offset || size == end.rounded
    }

    static func misfit(_ end: CaptureEnd, size: Int) -> String {
        "captures laid out to \(end.offset) bytes do not fit the context's \(size) allocated bytes: not read"
    }
}
