import LeakGraphHeap
import LeakGraphModel
import XCTest

private final class Chained {
    var next: Chained?
    weak var back: Chained?
}

/// Fields of every kind the compact walk's fast path reads (StrongSlots) or leaves to the interpreter.
private final class Mixed {
    var strong: Chained?
    weak var weakOne: Chained?
    unowned var unownedOne: Chained
    unowned(unsafe) var unsafeOne: Chained
    var any: AnyObject?
    var text = String(repeating: "a native string's storage ", count: 3)
    var action: () -> Void = {}
    var list: [Chained] = []
    var either: Result<Chained, Never>?
    var existential: Any?

    init(_ target: Chained) {
        unownedOne = target
        unsafeOne = target
    }
}

/// Only fields the fast path reads itself: no enum payload, no opaque existential.
private final class Simple {
    var strong: Chained?
    weak var weakOne: Chained?
    unowned var unownedOne: Chained
    var object: AnyObject
    var text = String(repeating: "a native string's storage ", count: 3)
    var action: () -> Void = {}

    init(_ target: Chained, _ other: Chained) {
        unownedOne = target
        object = other
        strong = other
        weakOne = target
        action = { _ = target }
    }
}

/// The compact scan and the graph of chosen objects (the leak check's path) against the whole walk.
final class PartialWalkTests: XCTestCase {
    /// `a → b → c` strongly, `c ⇢ b` weakly; an immortal record (the empty array's storage) among them.
    private func fixture() -> (objects: [Chained], records: [HeapObjectRecord]) {
        let a = Chained(), b = Chained(), c = Chained()
        a.next = b
        b.next = c
        c.back = b
        var empty: [Int] = []
        let records = [record(a), record(b), record(c), record(address: storageAddress(of: &empty))]
        return ([a, b, c], records)
    }

    /// The scan of the recorder's address buffer (fast path: strong slots read from a table, targets
    /// found by a gallop from the holder) and the scan through closures (the slot interpreter, binary
    /// search) find the same strong graph.
    func testAddressBufferScanFindsWhatTheClosureScanFinds() {
        let targets = (0 ..< 6).map { _ in Chained() }
        targets[0].next = targets[1]
        targets[1].back = targets[0]
        let mixed = (0 ..< 4).map { index -> Mixed in
            let object = Mixed(targets[index])
            object.strong = targets[(index + 1) % targets.count]
            object.weakOne = targets[index]
            object.any = targets[(index + 2) % targets.count]
            let captured = targets[(index + 3) % targets.count]
            object.action = { _ = captured }
            object.list = [targets[index], targets[5]]
            object.either = .success(targets[4])
            object.existential = index % 2 == 0 ? targets[3] as Any : (1, targets[2]) as Any
            return object
        }
        let simple = (0 ..< 4).map { Simple(targets[$0], targets[5 - $0]) }
        var list = mixed[0].list
        var records = targets.map(record) + mixed.map(record) + simple.map(record)
        records.append(record(address: storageAddress(of: &list)))
        records.sort { $0.address < $1.address }
        let addresses = records.map(\.address)
        let closureScan = HeapWalker().scan(count: records.count) { records[$0] }
        let bufferScan = addresses.withUnsafeBufferPointer { buffer in
            HeapWalker().scan(addresses: buffer) { records[$0] }
        }
        XCTAssertEqual(bufferScan.strongGraph, closureScan.strongGraph)
        XCTAssertGreaterThan(closureScan.strongGraph.targets.count, 20)
        withExtendedLifetime((targets, mixed, simple, list)) {}
    }

    func testGraphOfChosenObjectsIsTheWholeWalksSubgraph() {
        let (objects, unsorted) = fixture()
        for records in [unsorted.sorted { $0.address < $1.address }, unsorted.reversed()] {
            let walker = HeapWalker()
            let whole = walker.walk(records)
            XCTAssertEqual(whole.nodes.count, 3, "the immortal record is no node")
            XCTAssertEqual(whole.liveObjects, 3)

            let scan = walker.scan(count: records.count) { records[$0] }
            XCTAssertEqual(scan.liveObjects, 3)
            XCTAssertEqual(scan.strongGraph.targets.count, 2, "two strong references, the weak one left out")
            XCTAssertEqual(Array(scan.strongGraph.retainCounts), whole.nodes.map { UInt32($0.retainCount) })

            let b = whole.nodes.firstIndex { $0.address == address(objects[1]) }!
            let c = whole.nodes.firstIndex { $0.address == address(objects[2]) }!
            let chosen = [b, c].sorted()
            let part = walker.objectGraph(of: chosen, in: scan) { records[$0] }
            XCTAssertEqual(part.nodes, chosen.map { whole.nodes[$0] })
            XCTAssertEqual(part.liveObjects, 3)
            XCTAssertEqual(part.liveObjectsLeftOut, 1)
            XCTAssertEqual(part.trackedObjects, 4)
            let expected = whole.references.compactMap { reference -> Reference? in
                guard let from = chosen.firstIndex(of: reference.from), let to = chosen.firstIndex(of: reference.to) else { return nil }
                return Reference(from: from, to: to, path: reference.path, ownership: reference.ownership)
            }
            XCTAssertEqual(part.references, expected)
            XCTAssertEqual(Set(part.references.map(\.ownership)), [.strong, .weak], "b → c strong, c ⇢ b weak")
        }
        withExtendedLifetime(objects) {}
    }
}
