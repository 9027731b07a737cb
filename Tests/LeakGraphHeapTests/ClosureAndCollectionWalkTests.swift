import LeakGraphHeap
import LeakGraphModel
import XCTest

final class Widget {
    var x = 1
    var handler: (() -> Int)?
    var children: [Widget] = []
    var contiguous: ContiguousArray<Widget> = []
    var byName: [String: Widget] = [:]
    var members: Set<Member> = []
    var anyValue: Any?
    var state: ConnectionState = .idle
    var outcome: Result<Widget, TestError>?
}

final class Member: Hashable {
    let id: Int
    var owner: Widget?
    init(_ id: Int) { self.id = id }
    static func == (a: Member, b: Member) -> Bool { a.id == b.id }
    func hash(into h: inout Hasher) { h.combine(id) }
}

struct TestError: Error {}

enum ConnectionState {
    case idle
    case connected(Widget, retries: Int)
    case failed(String)
}

struct SmallValue { var w: Widget }
struct LargeValue { var a = 1, b = 2, c = 3; var w: Widget }


final class ClosureAndCollectionWalkTests: XCTestCase {
    func nodeIndex(_ graph: ObjectGraph, _ address: UInt) -> Int? {
        graph.nodes.firstIndex { $0.address == UInt64(address) }
    }

    func testSingleCaptureClosureUsesTheObjectAsContext() {
        let widget = Widget()
        widget.handler = { widget.x }
        let graph = HeapWalker().walk([record(widget)])
        XCTAssertEqual(outgoing(graph, from: widget), ["handler (closure) strong → LeakGraphHeapTests.Widget"])
        widget.handler = nil
    }

    func testWeakAndUnownedSelfCapturesAreNotStrong() throws {
        let widget = Widget()
        widget.handler = { [weak widget] in widget?.x ?? 0 }
        var graph = HeapWalker().walk([record(widget), record(address: try XCTUnwrap(contextOf(widget)))])
        XCTAssertEqual(graph.references.filter { $0.label == "handler (closure)" }.count, 1)
        let context = try XCTUnwrap(graph.nodes.firstIndex { $0.kind == .closureContext })
        XCTAssertEqual(
            graph.references.filter { $0.from == context }.map { "\($0.label) \($0.ownership)" }, ["capture[0] weak"])

        widget.handler = { [unowned widget] in widget.x }
        let contextAddress = try XCTUnwrap(contextOf(widget))
        graph = HeapWalker().walk([record(widget), record(address: contextAddress)])
        let unownedContext = try XCTUnwrap(graph.nodes.firstIndex { $0.kind == .closureContext })
        XCTAssertEqual(
            graph.references.filter { $0.from == unownedContext }.map { "\($0.label) \($0.ownership)" },
            ["capture[0] unowned"])
        widget.handler = nil
    }

    func testMultiCaptureContextListsEveryCapture() throws {
        let widget = Widget()
        let other = Widget()
        var counter = 0
        widget.handler = {
            counter += 1
            return widget.x + other.x + counter
        }
        let contextAddress = try XCTUnwrap(contextOf(widget))
        var graph = HeapWalker().walk([record(widget), record(other), record(address: contextAddress)])
        let context = try XCTUnwrap(graph.nodes.firstIndex { $0.kind == .closureContext })
        let out = graph.references.filter { $0.from == context }
        // The boxed `counter` is not in the record list, so only the two widgets appear.
        XCTAssertEqual(out.map { "\($0.ownership)" }.sorted(), ["strong", "strong"])
        XCTAssertEqual(Set(out.map { graph.nodes[$0.to].address }), [address(widget), address(other)])
        XCTAssertTrue(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        graph = ObjectGraph()
        widget.handler = nil
    }

    func testArrayElementsAreReferencesOfTheStorage() throws {
        let parent = Widget()
        let kids = [Widget(), Widget(), Widget()]
        parent.children = kids
        parent.contiguous = ContiguousArray(kids)
        let storage = storageAddress(of: &parent.children)
        var contiguous = Array(parent.contiguous)
        _ = contiguous
        let contiguousStorage = withUnsafeBytes(of: &parent.contiguous) { $0.load(as: UInt.self) }
        contiguous = []
        let graph = HeapWalker().walk(
            [record(parent), record(address: storage), record(address: contiguousStorage)] + kids.map { record($0) })
        let storageIndex = try XCTUnwrap(nodeIndex(graph, storage))
        XCTAssertEqual(graph.nodes[storageIndex].kind, .arrayStorage)
        XCTAssertEqual(graph.references.filter { $0.from == storageIndex }.map(\.label), ["[0]", "[1]", "[2]"])
        XCTAssertEqual(
            graph.references.filter { $0.from == storageIndex }.map { graph.nodes[$0.to].address },
            kids.map { address($0) })
        let parentIndex = try XCTUnwrap(nodeIndex(graph, UInt(address(parent))))
        XCTAssertEqual(
            graph.references.filter { $0.from == parentIndex }.map(\.label).sorted(), ["children", "contiguous"])
        let contiguousIndex = try XCTUnwrap(nodeIndex(graph, contiguousStorage))
        XCTAssertEqual(graph.references.filter { $0.from == contiguousIndex }.count, 3)
    }

    func testDictionaryValuesAndSetMembers() throws {
        let parent = Widget()
        let a = Widget(), b = Widget()
        parent.byName = ["a": a, "b": b]
        let m1 = Member(1), m2 = Member(2)
        parent.members = [m1, m2]
        let dictionaryStorage = withUnsafeBytes(of: &parent.byName) { $0.load(as: UInt.self) }
        let setStorage = withUnsafeBytes(of: &parent.members) { $0.load(as: UInt.self) }
        let graph = HeapWalker().walk([
            record(parent), record(a), record(b), record(m1), record(m2),
            record(address: dictionaryStorage), record(address: setStorage),
        ])
        let d = try XCTUnwrap(nodeIndex(graph, dictionaryStorage))
        XCTAssertEqual(graph.nodes[d].kind, .dictionaryStorage)
        XCTAssertEqual(
            Set(graph.references.filter { $0.from == d }.map { graph.nodes[$0.to].address }), [address(a), address(b)])
        let s = try XCTUnwrap(nodeIndex(graph, setStorage))
        XCTAssertEqual(graph.nodes[s].kind, .setStorage)
        XCTAssertEqual(
            Set(graph.references.filter { $0.from == s }.map { graph.nodes[$0.to].address }), [address(m1), address(m2)])
    }

    func testEnumPayloadsAndExistentials() throws {
        let holder = Widget()
        let peer = Widget()
        holder.state = .connected(peer, retries: 3)
        holder.outcome = .success(peer)
        holder.anyValue = SmallValue(w: peer)
        var graph = HeapWalker().walk([record(holder), record(peer)])
        XCTAssertEqual(
            outgoing(graph, from: holder),
            [
                "anyValue (LeakGraphHeapTests.SmallValue).w strong → LeakGraphHeapTests.Widget",
                "outcome (.success) strong → LeakGraphHeapTests.Widget",
                "state (.connected).0 strong → LeakGraphHeapTests.Widget",
            ])
        holder.state = .failed("x")
        holder.outcome = .failure(TestError())
        holder.anyValue = LargeValue(w: peer)
        graph = HeapWalker().walk([record(holder), record(peer)])
        // The large value lives in a box that is not among the records here.
        XCTAssertEqual(outgoing(graph, from: holder), [])
        XCTAssertTrue(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }
}

/// Reads the context pointer of `widget.handler` from the object's memory.
func contextOf(_ widget: Widget) -> UInt? {
    // `handler` is an Optional thick function: find its offset by scanning for the function pointer.
    return withExtendedLifetime(widget) {
        let base = UnsafeRawPointer(Unmanaged.passUnretained(widget).toOpaque())
        // Widget layout: header 16, x 8, handler 16 (fn, ctx).
        return base.load(fromByteOffset: 32, as: UInt.self)
    }
}

final class DictionaryKeyLabelTests: XCTestCase {
    func testDictionaryValueLabelsShowStringAndIntegerKeys() throws {
        let parent = Widget()
        let a = Widget(), b = Widget()
        let longKey = "a key long enough to live in heap storage"
        parent.byName = ["a": a, longKey: b]
        let storage = withUnsafeBytes(of: &parent.byName) { $0.load(as: UInt.self) }
        let graph = HeapWalker().walk([record(parent), record(a), record(b), record(address: storage)])
        let d = try XCTUnwrap(graph.nodes.firstIndex { $0.address == UInt64(storage) })
        XCTAssertEqual(
            graph.references.filter { $0.from == d }.map(\.label).sorted(),
            ["[\"a key long enough to live in hea…\"]", "[\"a\"]"])

        var byNumber: [Int: Widget] = [42: a, -7: b]
        let numberStorage = withUnsafeBytes(of: &byNumber) { $0.load(as: UInt.self) }
        let numberGraph = HeapWalker().walk([record(a), record(b), record(address: numberStorage)])
        let n = try XCTUnwrap(numberGraph.nodes.firstIndex { $0.address == UInt64(numberStorage) })
        XCTAssertEqual(numberGraph.references.filter { $0.from == n }.map(\.label).sorted(), ["[-7]", "[42]"])
        withExtendedLifetime(byNumber) {}
    }
}
