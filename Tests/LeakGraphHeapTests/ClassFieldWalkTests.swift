import LeakGraphHeap
import LeakGraphModel
import XCTest

final class Target {}

class Base {
    var inherited: Target?
    init(_ t: Target?) { inherited = t }
}

final class Holder: Base {
    var strong: Target
    var optional: Target?
    weak var weakRef: Target?
    unowned var unownedRef: Target
    unowned(unsafe) var unsafeRef: Target
    var unmanaged: Unmanaged<Target>
    var meta: Meta
    var pair: (Int, Target)
    var delegate: (any Delegate)?
    var anyObject: AnyObject?
    var number = 42

    struct Meta {
        var id = 1
        var owner: Target
    }

    init(_ t: Target) {
        strong = t
        optional = t
        weakRef = t
        unownedRef = t
        unsafeRef = t
        unmanaged = .passUnretained(t)
        meta = Meta(owner: t)
        pair = (7, t)
        delegate = DelegateImpl()
        anyObject = t
        super.init(t)
    }
}

protocol Delegate: AnyObject {}
final class DelegateImpl: Delegate {}

final class GenericBox<T> {
    var value: T
    init(_ value: T) { self.value = value }
}

final class ClassFieldWalkTests: XCTestCase {
    func testEveryFieldKindOfAClassIsLabelledWithItsOwnership() {
        let target = Target()
        let holder = Holder(target)
        let graph = HeapWalker().walk([record(holder), record(target), record(holder.delegate!)])
        let t = "LeakGraphHeapTests.Target"
        XCTAssertEqual(
            outgoing(graph, from: holder),
            [
                "anyObject strong → \(t)",
                "delegate strong → LeakGraphHeapTests.DelegateImpl",
                "inherited strong → \(t)",
                "meta.owner strong → \(t)",
                "optional strong → \(t)",
                "pair.1 strong → \(t)",
                "strong strong → \(t)",
                "unmanaged unmanaged → \(t)",
                "unownedRef unowned → \(t)",
                "unsafeRef unmanaged → \(t)",
                "weakRef weak → \(t)",
            ])
        let targetNode = graph.nodes.first { $0.address == address(target) }!
        // strong, optional, inherited, meta.owner, pair.1, anyObject, and this test's `target` local.
        XCTAssertEqual(targetNode.retainCount, 7)
        XCTAssertEqual(targetNode.kind, .class)
        XCTAssertTrue(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    func testGenericClassFieldsResolveTheirTypeArguments() {
        let target = Target()
        let strongBox = GenericBox(target)
        let intBox = GenericBox(5)
        let optionalBox = GenericBox<Target?>(target)
        let graph = HeapWalker().walk([record(strongBox), record(intBox), record(optionalBox), record(target)])
        XCTAssertEqual(outgoing(graph, from: strongBox), ["value strong → LeakGraphHeapTests.Target"])
        XCTAssertEqual(outgoing(graph, from: intBox), [])
        XCTAssertEqual(outgoing(graph, from: optionalBox), ["value strong → LeakGraphHeapTests.Target"])
        XCTAssertEqual(graph.nodes.first { $0.address == address(strongBox) }?.typeName,
                       "LeakGraphHeapTests.GenericBox<LeakGraphHeapTests.Target>")
    }
}
