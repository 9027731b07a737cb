import LeakGraphModel

/// The strong references of an object whose plan holds only fixed slots of simple kinds — object
/// pointers, boxes, bridge objects, function contexts, class existentials: most class instances. The
/// compact walk (``HeapWalker/scan(addresses:record:)``) reads them with one pass over a table of
/// offsets, without the slot interpreter
/// (``ReferenceScanner/scan(object:plan:found:unreadable:)``), whose paths, enum copies and closures a
/// walk of millions of objects would pay per slot. It finds exactly the strong references that
/// interpreter reports without paths, in the same order.
struct StrongSlots {
    /// How the word at an offset holds its reference.
    enum Kind: UInt8 {
        /// An object pointer (a strong reference, a box, a class existential's first word).
        case pointer
        /// A `Builtin.BridgeObject`: an object pointer when its top four bits are clear.
        case bridgeObject
    }

    /// Byte offset of each strong reference's word (a thick function's context word already added).
    let offsets: [Int]
    /// How each word holds its reference.
    let kinds: [Kind]

    /// The strong slots of `plan`, or `nil` when the plan needs the interpreter (tail-allocated storage,
    /// enums, existentials, blocks, continuations, unreadable parts, closure contexts whose capture layout
    /// must first be checked against the allocated size).
    init?(_ plan: ObjectPlan) {
        guard plan.tail == nil, plan.captureEnd == nil else { return nil }
        var offsets: [Int] = []
        var kinds: [Kind] = []
        for slot in plan.slots {
            switch slot.content {
            case .reference(let ownership):
                if ownership == .strong {
                    offsets.append(slot.offset)
                    kinds.append(.pointer)
                }
            case .boxReference, .classExistential:
                offsets.append(slot.offset)
                kinds.append(.pointer)
            case .bridgeObject:
                offsets.append(slot.offset)
                kinds.append(.bridgeObject)
            case .thickFunction:
                offsets.append(slot.offset + 8)
                kinds.append(.pointer)
            case .weakReference:
                break  // never strong; a walk without paths does not read it
            case .block, .opaqueExistential, .enumeration, .continuation, .unreadable:
                return nil
            }
        }
        self.offsets = offsets
        self.kinds = kinds
    }
}
