import LeakGraphHeap
import LeakGraphModel
import XCTest

private final class Chained {
    var next: Chained?
    weak var back: Chained?
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
            XCTAssertEqual(scan.strongGraph.retainCounts, whole.nodes.map { UInt32($0.retainCount) })

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
