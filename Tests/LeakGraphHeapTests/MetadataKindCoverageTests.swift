import CLeakGraphMetadata
@testable import LeakGraphHeap
import Testing

/// Never silent (issue 12): every metadata kind the runtime defines is either read or named as not read.
/// Real metadata where a Swift type has that kind; a minimal fake record (kind word, and a value-witness
/// table that says "needs destroying") for kinds no value type has on Linux.
@Suite("Metadata kinds: each read or diagnosed")
struct MetadataKindCoverageTests {
    final class Holder {}
    struct Pair { var left: Int; var right: Holder }
    enum Choice { case first(Holder), second(Holder) }
    protocol Named {}
    protocol Repository<Item> { associatedtype Item }

    enum Outcome: Equatable { case reads, holdsNothing, diagnosed }

    static func metadata(_ type: Any.Type) -> UnsafeRawPointer { unsafeBitCast(type, to: UnsafeRawPointer.self) }

    /// A fake metadata record of `kind` whose value witnesses say the value needs destroying. Leaked on
    /// purpose: layouts are cached by metadata address for the walk's lifetime.
    static func fake(_ kind: MetadataKind) -> UnsafeRawPointer {
        let witnesses = UnsafeMutableRawPointer.allocate(byteCount: 88, alignment: 8)
        witnesses.initializeMemory(as: UInt8.self, repeating: 0, count: 88)
        witnesses.storeBytes(of: 8, toByteOffset: 64, as: Int.self)  // size
        witnesses.storeBytes(of: 8, toByteOffset: 72, as: Int.self)  // stride
        witnesses.storeBytes(of: 0x0001_0007, toByteOffset: 80, as: UInt32.self)  // non-POD, alignment 8
        let record = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 8)
        record.initializeMemory(as: UInt8.self, repeating: 0, count: 32)
        record.storeBytes(of: UInt(bitPattern: Int(bitPattern: witnesses)), as: UInt.self)
        record.storeBytes(of: kind.rawValue, toByteOffset: 8, as: UInt.self)
        return UnsafeRawPointer(record + 8)
    }

    /// What each kind is expected to give, and the metadata to try it on.
    static var cases: [MetadataKind: (UnsafeRawPointer, Outcome)] {
        [
            .class: (metadata(Holder.self), .reads),
            .struct: (metadata(Pair.self), .reads),
            .enum: (metadata(Choice.self), .reads),
            .optional: (metadata(Holder?.self), .reads),
            .foreignClass: (fake(.foreignClass), .reads),
            .foreignReferenceType: (fake(.foreignReferenceType), .reads),
            .opaque: (metadata(ManagedBufferPointer<Int, Int>.self), .reads),  // its Builtin.NativeObject
            .tuple: (metadata((Int, Holder).self), .reads),
            .function: (metadata((() -> Void).self), .reads),
            .existential: (metadata((any Named).self), .reads),
            .metatype: (metadata(Holder.Type.self), .holdsNothing),
            .objcClassWrapper: (fake(.objcClassWrapper), .reads),
            .existentialMetatype: (metadata((any Named.Type).self), .holdsNothing),
            .extendedExistential: (metadata((any Repository<Holder>).self), .reads),
            .fixedArray: (metadata(InlineArray<2, Holder>.self), .reads),  // its Builtin.FixedArray
            .heapLocalVariable: (fake(.heapLocalVariable), .diagnosed),
            .heapGenericLocalVariable: (fake(.heapGenericLocalVariable), .diagnosed),
            .errorObject: (fake(.errorObject), .diagnosed),
            .task: (fake(.task), .diagnosed),
            .job: (fake(.job), .diagnosed),
        ]
    }

    static func outcome(of slots: [Slot]) -> Outcome {
        if slots.contains(where: { if case .unreadable = $0.content { true } else { false } }) { return .diagnosed }
        return slots.isEmpty ? .holdsNothing : .reads
    }

    @Test("every kind is listed, and each value of it is read or named as not read")
    func everyKind() {
        let cases = Self.cases
        #expect(Set(cases.keys) == Set(MetadataKind.allCases))
        let layouts = ValueLayouts()
        for kind in MetadataKind.allCases {
            guard let (metadata, expected) = cases[kind] else { continue }
            #expect(Self.outcome(of: layouts.slots(of: metadata)) == expected, "\(kind)")
        }
        // Two elements of an inline array, each its own reference.
        #expect(layouts.slots(of: Self.metadata(InlineArray<2, Holder>.self)).count == 2)
    }

    @Test("a kind the runtime does not define is named, as a value and as a heap object")
    func unknownKind() {
        let unknown = Self.fake(.job) + 0  // then overwrite the kind word with an undefined value
        UnsafeMutableRawPointer(mutating: unknown).storeBytes(of: 0x7FE as UInt, as: UInt.self)
        #expect(Self.outcome(of: ValueLayouts().slots(of: unknown)) == .diagnosed)
        #expect(!ObjectPlans().plan(for: unknown).unreadable.isEmpty)
    }

    @Test("heap objects of kinds the walk does not read are named")
    func heapKinds() {
        #expect(!ObjectPlans().plan(for: Self.fake(.job)).unreadable.isEmpty)
    }

    @Test("tasks are read (their closure context) on the runtime whose task layout LeakGraph knows")
    func tasks() {
        #expect(lg_task_layout_known(), "Swift 6.3's concurrency runtime reports task layout version 1, 208 bytes")
        let plan = ObjectPlans().plan(for: Self.fake(.task))
        #expect(plan.kind == .task && plan.role == .task && plan.unreadable.isEmpty)
        if case .taskClosure? = plan.tail {} else { Issue.record("no task tail plan") }
    }
}
