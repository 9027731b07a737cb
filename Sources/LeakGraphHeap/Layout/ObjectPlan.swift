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

    init(kind: ObjectKind, typeName: String, slots: [Slot], tail: TailPlan? = nil, unreadable: [String] = []) {
        self.kind = kind
        self.typeName = typeName
        self.slots = slots
        self.tail = tail
        var reasons = unreadable
        for slot in slots {
            if case .unreadable(let reason) = slot.content {
                reasons.append("\(slot.label): \(reason)")
            }
        }
        self.unreadable = reasons
    }
}

/// Tail-allocated elements of collection storage.
enum TailPlan {
    /// `_ContiguousArrayStorage<Element>`: count at +16, elements from `start` with `stride`.
    case arrayElements(element: [Slot], start: Int, stride: Int)
    /// `_DictionaryStorage<Key, Value>`: occupied buckets from the bitmap at +64.
    case dictionaryBuckets(key: [Slot], keyStride: Int, value: [Slot], valueStride: Int)
    /// `_SetStorage<Element>`: occupied buckets from the bitmap at +56.
    case setBuckets(element: [Slot], stride: Int)
    /// A generic closure context: captures laid out per object from the bindings it stores.
    case genericCaptures(GenericClosurePlan)
}
