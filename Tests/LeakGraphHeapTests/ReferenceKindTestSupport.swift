import LeakGraphHeap
import LeakGraphModel

// Helpers for the reference-kind walker tests: raw reads of the words inside live objects (to find the
// heap objects a value points to — boxes, storages, contexts — without copying the value, which would
// retain it), and the walk's references as readable strings.

/// The word at `offset` bytes into `object`'s memory.
func rawWord(_ object: AnyObject, at offset: Int) -> UInt {
    withExtendedLifetime(object) {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()).load(fromByteOffset: offset, as: UInt.self)
    }
}

/// The heap object address inside a word that may carry enum tag bits in the pointer's spare bits
/// (x86_64 and arm64 user-space addresses fit in the low 56 bits and are 8-byte aligned).
func heapAddress(_ word: UInt) -> UInt {
    word & 0x00FF_FFFF_FFFF_FFF8
}

/// The heap object pointed to by the word at `offset` in `object`, spare bits removed.
func heapObject(in object: AnyObject, at offset: Int) -> UInt {
    heapAddress(rawWord(object, at: offset))
}

/// The references out of the node at `address`, as `label ownership → target type`, sorted.
func outgoing(_ graph: ObjectGraph, fromAddress address: UInt) -> [String] {
    guard let index = graph.nodes.firstIndex(where: { $0.address == UInt64(address) }) else {
        return ["(no node at 0x\(String(address, radix: 16)))"]
    }
    return graph.references.filter { $0.from == index }
        .map { "\($0.label) \($0.ownership.rawValue) → \(graph.nodes[$0.to].typeName)" }
        .sorted()
}

/// The node at `address`.
func node(_ graph: ObjectGraph, at address: UInt) -> ObjectNode? {
    graph.nodes.first { $0.address == UInt64(address) }
}

/// How many strong references the walk found into the node at `address`.
func strongInEdges(_ graph: ObjectGraph, to address: UInt) -> Int {
    guard let index = graph.nodes.firstIndex(where: { $0.address == UInt64(address) }) else { return -1 }
    return graph.references.filter { $0.to == index && $0.ownership == .strong }.count
}

/// The word at `offset` bytes into the heap object at `address`.
func rawWord(address: UInt, at offset: Int) -> UInt {
    UnsafeRawPointer(bitPattern: address)!.load(fromByteOffset: offset, as: UInt.self)
}

/// Zeros the 4 padding bytes after each element offset of a tuple type's metadata.
///
/// On Linux a tuple metadata element is `{ type pointer, uint32 offset, 4 bytes never written }`; the
/// walker reads the offset as a word (``KnownWalkerIssue/tupleOffsets``), so in a test process whose
/// metadata pools came from a used heap it reads garbage and traps, taking every test down with it. The
/// tests that walk tuple payloads scrub their tuples' padding first; the bug itself is shown by the
/// TupleMetadata end-to-end fixture. Once the walker reads 32 bits, this is a no-op and can go.
func scrubTuplePadding(_ types: Any.Type...) {
    for type in types {
        let metadata = unsafeBitCast(type, to: UnsafeMutableRawPointer.self)
        guard metadata.load(as: UInt.self) == 0x301 else { continue }
        let count = metadata.load(fromByteOffset: 8, as: Int.self)
        for index in 0..<count {
            metadata.storeBytes(of: 0, toByteOffset: 24 + index * 16 + 12, as: UInt32.self)
        }
    }
}
