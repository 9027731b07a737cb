import LeakGraphModel

/// How to find the references inside every heap object of one metadata: built once per metadata.
final class ObjectPlan {
    /// What kind of heap object this is.
    let kind: ObjectKind
    /// The type name shown in reports.
    let typeName: String
    /// References at fixed offsets from the object's start.
    let slots: [Slot]
    /// References in tail-allocated storage (array elements, dictionary buckets).
    let tail: TailPlan?
    /// Why part of the object's layout could not be read (empty when read exactly).
    let unreadable: [String]
    /// What the task rule (``TaskResumers``) needs to know about objects of this plan.
    var role: Role = .none
    /// For a context object with exactly one capture: the captured type's name. Such an object is a
    /// box when a reference to it says so (see ``ReferenceScanner/Found``).
    var boxedTypeName: String?
    /// For a closure context whose captures were all laid out: where the last one ends.
    var captureEnd: CaptureEnd?

    init(kind: ObjectKind, typeName: String, slots: [Slot], tail: TailPlan? = nil, unreadable: [String] = []) {
        self.kind = kind
        self.typeName = typeName
        self.slots = slots
        self.tail = tail
        var reasons = unreadable
        for slot in slots {
            if case .unreadable(let reason) = slot.content {
                reasons.append("\(slot.path.text): \(reason)")
            }
        }
        self.unreadable = reasons
    }
}

extension ObjectPlan {
    /// The runtime objects the task rule recognises.
    enum Role: Equatable {
        case none
        /// A concurrency task LeakGraph reads (``TailPlan/taskClosure``).
        case task
        /// `AsyncStream<Element>._Storage` (`throwing`: `AsyncThrowingStream<Element, Failure>._Storage`):
        /// the stream's state, with the continuations of waiting tasks.
        case asyncStreamStorage(throwing: Bool)
        /// `_Context` of either stream: what an `AsyncStream` value and its iterators hold (the
        /// consumer's side, which cannot resume a waiting task).
        case asyncStreamContext
        /// `CheckedContinuationCanary`: what every copy of a `CheckedContinuation` holds, with the raw
        /// continuation (the waiting task) until it is resumed.
        case continuationCanary
    }
}

/// Tail-allocated elements of collection storage.
enum TailPlan {
    /// `_ContiguousArrayStorage<Element>`: count at +16, elements from `start` with `stride`.
    case arrayElements(element: [Slot], start: Int, stride: Int)
    /// `_DictionaryStorage<Key, Value>`: occupied buckets from the bitmap at +64.
    case dictionaryBuckets(key: [Slot], keyStride: Int, value: [Slot], valueStride: Int, keyFormat: KeyFormat)
    /// `_SetStorage<Element>`: occupied buckets from the bitmap at +56.
    case setBuckets(element: [Slot], stride: Int)
    /// An `any Error` box (metadata kind 0x501): the value's type at +16, the value from +32.
    case errorValue
    /// A generic closure context: captures laid out per object from the bindings it stores.
    case genericCaptures(GenericClosurePlan)
    /// `ManagedBuffer` tail elements whose initialized range its header names (``ManagedBufferCount``):
    /// elements from `start` with `stride`; `capacity` elements fit in the allocation.
    case managedBufferElements(element: [Slot], start: Int, stride: Int, count: ManagedBufferCount)
    /// A key path object (`AnyKeyPath` and subclasses): its component buffer, whose 32-bit header is at
    /// `headerOffset`; the captured arguments of its subscript components are read as
    /// ``KeyPathArguments`` says.
    case keyPathBuffer(headerOffset: Int)
    /// A concurrency task (metadata kind 0x502, recorded from `swift_task_create`): the closure context
    /// of the function it runs, read only while the task is suspended or enqueued — not running (its
    /// context may be released any moment) and not completed (released) — at the offset the runtime's
    /// task layout gives (`lg_task_closure_context_offset`).
    case taskClosure
}

/// How a dictionary key is shown in labels (`["a"]`, `[42]`), read from raw memory without copying.
enum KeyFormat {
    /// `Swift.String`: small strings inline, large ones from their UTF-8 storage.
    case string
    /// A fixed-width integer of `byteCount` bytes.
    case integer(byteCount: Int, signed: Bool)
    /// Anything else: the bucket number is shown.
    case bucket

    init(typeName: String) {
        switch typeName {
        case "Swift.String": self = .string
        case "Swift.Int", "Swift.Int64": self = .integer(byteCount: 8, signed: true)
        case "Swift.UInt", "Swift.UInt64": self = .integer(byteCount: 8, signed: false)
        case "Swift.Int32": self = .integer(byteCount: 4, signed: true)
        case "Swift.UInt32": self = .integer(byteCount: 4, signed: false)
        case "Swift.Int16": self = .integer(byteCount: 2, signed: true)
        case "Swift.UInt16": self = .integer(byteCount: 2, signed: false)
        case "Swift.Int8": self = .integer(byteCount: 1, signed: true)
        case "Swift.UInt8": self = .integer(byteCount: 1, signed: false)
        default: self = .bucket
        }
    }
}

/// Where a `ManagedBuffer`'s header says which tail elements are initialized: byte offsets of `Int`
/// fields from the object's start.
enum ManagedBufferCount {
    /// Elements `0 ..< count`; `count` is an integer of `byteCount` bytes (unsigned when `byteCount` < 8).
    case prefix(countOffset: Int, byteCount: Int)
    /// A ring (swift-collections' `Deque`): `count` elements from slot `start`, wrapping at `capacity`.
    case ring(capacityOffset: Int, countOffset: Int, startOffset: Int)
}

/// Where a closure context's captures end: the offset after the last one, and that offset rounded up to the
/// context's alignment (the largest of its captures', at least a word's). The allocation's size is one of
/// the two (``ReferenceScanner/fits(_:size:)``).
struct CaptureEnd: Equatable {
    var offset: Int
    var rounded: Int
}
