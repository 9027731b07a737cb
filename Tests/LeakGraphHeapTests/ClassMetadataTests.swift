import Testing

@testable import LeakGraphHeap

/// ``ClassMetadata`` and ``ValueMetadata`` read the fields where include/swift/ABI/Metadata.h puts them,
/// checked against classes and structs compiled by this toolchain.
@Suite("Class and value metadata views")
struct ClassMetadataTests {
    private class Base {
        var count = 1
    }

    private final class Derived: Base {
        var flag: Int8 = 2
        var other: AnyObject?
    }

    private final class Box<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private struct Pair {
        var first: AnyObject?
        var second = 0
    }

    private static func metadata(of type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    @Test("superclass, instance size and descriptor of a class hierarchy")
    func hierarchy() throws {
        let base = ClassMetadata(Self.metadata(of: Base.self))
        let derived = ClassMetadata(Self.metadata(of: Derived.self))
        #expect(base.superclass == nil, "a Swift root class has no superclass without Objective-C interop")
        #expect(derived.superclass == base.base)
        #expect(base.instanceSize == 16 + 8, "the object header, then `count`")
        #expect(derived.instanceSize == 16 + 8 + 8 + 8, "`flag` padded to the alignment of `other`")
        #expect(base.descriptor?.name == "Base")
        #expect(derived.descriptor?.name == "Derived")
        #expect(derived.descriptor?.kind == .class)
        let descriptor = try #require(derived.descriptor)
        let vector = try #require(descriptor.classFieldOffsetVectorWordOffset)
        let offsets = derived.members(atWord: vector)
        #expect(offsets.word(at: 0) == 24 && offsets.word(at: 8) == 32, "Derived's own fields: flag, other")
    }

    @Test("a generic class's arguments are its immediate members")
    func genericArguments() throws {
        let box = ClassMetadata(Self.metadata(of: Box<Int>.self))
        let descriptor = try #require(box.descriptor)
        #expect(descriptor.isGeneric)
        let members = try #require(descriptor.classImmediateMembersWordOffset)
        #expect(box.members(atWord: members).pointer(at: 0) == Self.metadata(of: Int.self))
    }

    @Test("a struct's descriptor follows its kind")
    func valueDescriptor() throws {
        let pair = ValueMetadata(Self.metadata(of: Pair.self))
        let descriptor = try #require(pair.descriptorAddress.map(ContextDescriptor.init))
        #expect(descriptor.kind == .struct)
        #expect(descriptor.name == "Pair")
    }
}
