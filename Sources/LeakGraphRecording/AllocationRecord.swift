import CLeakGraphHook

/// One tracked Swift heap object in a frozen heap snapshot: the C hook's `lg_record`, handed over
/// without copying.
///
/// Fields: `object` (the object's address), `metadata` (its type metadata pointer, the object's first
/// word, as passed to `swift_allocObject`), `size` (the size in bytes the runtime was asked to
/// allocate) and `stack_id` (the creation stack for ``Recorder/stack(_:)``, or
/// ``AllocationRecord/noStack``). While the heap is frozen (``Recorder/withFrozenHeap(_:)``) the
/// memory at `object` stays readable even if the object dies meanwhile.
public typealias AllocationRecord = lg_record

extension AllocationRecord {
    /// The `stack_id` of a record without a creation stack.
    public static var noStack: UInt32 { UInt32(LG_NO_STACK) }

    /// The object's address.
    public var address: UInt { UInt(object) }

    /// The creation stack's id, or `nil` when the record has none.
    public var stackID: UInt32? { stack_id == Self.noStack ? nil : stack_id }
}
