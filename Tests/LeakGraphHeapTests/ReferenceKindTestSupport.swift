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

