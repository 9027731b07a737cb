import XCTest

@testable import LeakGraphRecording

/// `FrozenRecords` reads runs of records: in address order, out of order, across runs and at the end,
/// each record the one `Recorder.frozenRecord(at:)` gives.
final class FrozenRecordsTests: XCTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Recorder.install()
    }

    private func same(_ a: AllocationRecord?, _ b: AllocationRecord?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.object == b.object && a.metadata == b.metadata && a.size == b.size && a.stack_id == b.stack_id
    }

    func testRunsGiveEachObjectsOwnRecord() {
        let objects = (0..<(3 * FrozenRecords.runLength + 17)).map { _ in Probe() }
        let (inOrder, outOfOrder, count) = Recorder.withFrozenObjects { addresses -> (Bool, Bool, Int) in
            let sequential = FrozenRecords(addresses)
            let inOrder = addresses.indices.allSatisfy {
                same(sequential.record(at: $0), Recorder.frozenRecord(at: addresses[$0]))
            }
            // Backwards, then jumps: every read outside the last run.
            let random = FrozenRecords(addresses)
            let positions = Array(addresses.indices.reversed()) + [0, addresses.count / 2, 1, addresses.count - 1]
            let outOfOrder = positions.allSatisfy {
                same(random.record(at: $0), Recorder.frozenRecord(at: addresses[$0]))
            }
            return (inOrder, outOfOrder, addresses.count)
        }
        XCTAssertGreaterThan(count, objects.count)
        XCTAssertTrue(inOrder, "in address order, run by run")
        XCTAssertTrue(outOfOrder, "out of order, one at a time")
        [address(of: objects[0])].withUnsafeBufferPointer { addresses in
            XCTAssertNil(FrozenRecords(addresses).record(at: 0), "no record outside a freeze")
        }
        withExtendedLifetime(objects) {}
    }
}
