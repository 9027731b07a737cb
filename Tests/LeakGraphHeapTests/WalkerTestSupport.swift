import LeakGraphHeap
import LeakGraphModel
import XCTest

/// Builds records for objects made in-process (no hook needed: the test keeps them alive).
func record(_ object: AnyObject) -> HeapObjectRecord {
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    let metadata = UnsafeRawPointer(bitPattern: address)!.load(as: UInt.self)
    return HeapObjectRecord(address: address, metadata: metadata, size: 0)
}

/// Builds a record for any heap object address (closure contexts, array storage).
func record(address: UInt) -> HeapObjectRecord {
    let metadata = UnsafeRawPointer(bitPattern: address)!.load(as: UInt.self)
    return HeapObjectRecord(address: address, metadata: metadata, size: 0)
}

func address(_ object: AnyObject) -> UInt64 {
    UInt64(UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque()))
}

/// The (label, ownership, target type) triples of references out of `object`.
func outgoing(_ graph: ObjectGraph, from object: AnyObject) -> [String] {
    let index = graph.nodes.firstIndex { $0.address == address(object) }!
    return graph.references.filter { $0.from == index }
        .map { "\($0.label) \($0.ownership.rawValue) → \(graph.nodes[$0.to].typeName)" }
        .sorted()
}

/// Reads the storage object of an array without retaining it.
func storageAddress<T>(of array: inout [T]) -> UInt {
    withUnsafeBytes(of: &array) { $0.load(as: UInt.self) }
}
