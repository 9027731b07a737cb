import LeakGraphModel

/// One place inside a value where a reference may live, at a fixed offset from the value's start.
///
/// A layout is a flat list of slots: struct and tuple fields are flattened into their container at plan
/// time (their paths joined), so walking an object is one pass over an array.
struct Slot {
    /// Byte offset from the start of the value.
    var offset: Int
    /// Where a reference found here is stored (`delegate`, `meta.owner`, `pair.0`), relative to the value.
    var path: ReferencePath
    /// What is stored here.
    var content: SlotContent

    /// The slot of this value when the value itself sits `delta` bytes into a container, at `prefix`.
    func shifted(by delta: Int, under prefix: ReferencePath) -> Slot {
        Slot(offset: offset + delta, path: prefix.appending(path), content: content)
    }
}

/// What a slot holds.
enum SlotContent {
    /// A native object pointer with the given ownership (strong, unowned or unmanaged).
    case reference(Ownership)
    /// A `weak` reference: a pointer to the target's side table, or zero.
    case weakReference
    /// A strong pointer to a box object (a captured `var`'s box).
    case boxReference
    /// A `Builtin.BridgeObject`: a strong object pointer when its top four bits are clear (native,
    /// mortal, not small, not foreign); otherwise a tagged value that holds no tracked object.
    case bridgeObject
    /// A thick Swift function value: the context pointer is the second word.
    case thickFunction
    /// A `@convention(block)` function value: a pointer to a heap block. A block Swift made from a
    /// closure carries the closure's context (held strongly), directly or wrapped by libdispatch
    /// (`DispatchWorkItem`); it is read only when every block on the way has this one holder
    /// (`lg_block_swift_context`).
    case block
    /// A class-bound existential (`any Delegate`, `AnyObject`): the object pointer is the first word.
    case classExistential
    /// An opaque existential (`any P`, `Any`): a three-word buffer, then the dynamic type's metadata.
    case opaqueExistential(String)
    /// An enum value (including `Optional`) whose active case decides what is stored.
    case enumeration(EnumPlan)
    /// A raw continuation (`Builtin.RawUnsafeContinuation`, the one field of `UnsafeContinuation`): the
    /// address of the suspended task it resumes, held without a retain. Not a reference; the compact
    /// walk hands it to ``ReferenceScanner/continuationFound`` for the task rule (``TaskResumers``).
    case continuation
    /// A value whose layout could not be read; references inside it are not seen.
    case unreadable(String)
}

/// How an enum's payloads are laid out. Built once per enum metadata.
final class EnumPlan {
    let metadata: UnsafeRawPointer
    let size: Int
    let isOptional: Bool
    /// Payload cases in tag order (payload cases come first in an enum's tag numbering).
    let payloadCases: [EnumCase]

    struct EnumCase {
        let name: String
        let isIndirect: Bool
        let slots: [Slot]
    }

    init(metadata: UnsafeRawPointer, size: Int, isOptional: Bool, payloadCases: [EnumCase]) {
        self.metadata = metadata
        self.size = size
        self.isOptional = isOptional
        self.payloadCases = payloadCases
    }
}
