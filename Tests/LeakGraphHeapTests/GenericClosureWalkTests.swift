import LeakGraphHeap
import LeakGraphModel
import XCTest

final class GenericCaptureHolder {
    var handler: (() -> Int)?
}

/// Stores, from inside a generic function, a closure capturing a `T` and an object: its context is a
/// generic closure context whose capture layout depends on `T`.
@inline(never)
func installGenericClosure<T>(_ value: T, _ object: GenericCaptureHolder, into holder: GenericCaptureHolder) {
    holder.handler = { _ = value; return object.handler == nil ? 0 : 1 }
}

/// The context of a closure stored in `holder.handler` (layout: header 16, handler 16 = fn, ctx).
func handlerContext(_ holder: GenericCaptureHolder) -> UInt {
    UnsafeRawPointer(Unmanaged.passUnretained(holder).toOpaque()).load(fromByteOffset: 24, as: UInt.self)
}

final class GenericClosureWalkTests: XCTestCase {
    func testGenericClosureCapturesAreReadThroughItsBindings() throws {
        for value in [AnyHashable(42), AnyHashable("a string long enough to need heap storage")] {
            let holder = GenericCaptureHolder()
            let target = GenericCaptureHolder()
            if let number = value.base as? Int {
                installGenericClosure(number, target, into: holder)
            } else {
                installGenericClosure(value.base as! String, target, into: holder)
            }
            let records = [record(holder), record(target), record(address: handlerContext(holder))]
            let graph = HeapWalker().walk(records)
            XCTAssertTrue(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
            let intoTarget = graph.references.filter { graph.nodes[$0.to].address == address(target) }
            XCTAssertEqual(intoTarget.count, 1, "\(graph.references)")
            XCTAssertEqual(intoTarget.first?.ownership, .strong)
            XCTAssertEqual(graph.nodes[intoTarget[0].from].kind, .closureContext)
            holder.handler = nil
        }
    }
}
