import Foundation
import Synchronization
import XCTest

@testable import LeakGraphRecording

final class RecorderTests: XCTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Recorder.install()
    }

    func testInstallIsIdempotentAndChecksFrames() throws {
        XCTAssertTrue(Recorder.isInstalled)
        try Recorder.install()
        try Recorder.install(maxFrames: Recorder.defaultMaxFrames)
        XCTAssertThrowsError(try Recorder.install(maxFrames: Recorder.maxFramesLimit + 1)) { error in
            XCTAssertEqual((error as? RecorderError)?.code, .invalidArgument)
        }
        XCTAssertThrowsError(try Recorder.install(maxFrames: -1)) { error in
            XCTAssertEqual((error as? RecorderError)?.code, .invalidArgument)
        }
        XCTAssertTrue(Recorder.isInstalled)
    }

    func testFrozenObjectsAndRecordsMatchTheSnapshot() {
        let objects = (0..<1000).map { _ in Probe() }
        let (sameAddresses, sameRecords) = Recorder.withFrozenHeap { records in
            Recorder.withFrozenObjects { addresses -> (Bool, Bool) in
                let same = records.allSatisfy { record in
                    guard let looked = Recorder.frozenRecord(at: record.address) else { return false }
                    return looked.object == record.object && looked.metadata == record.metadata
                        && looked.size == record.size && looked.stack_id == record.stack_id
                }
                return (records.map(\.address) == Array(addresses), same)
            }
        }
        XCTAssertTrue(sameAddresses, "the addresses are the snapshot's, in its order")
        XCTAssertTrue(sameRecords, "each looked-up record is the snapshot's")
        XCTAssertNil(Recorder.frozenRecord(at: address(of: objects[0])), "no record outside a freeze")
        let untracked = Recorder.withFrozenObjects { _ in Recorder.frozenRecord(at: 16) }
        XCTAssertNil(untracked)
        withExtendedLifetime(objects) {}
    }

    func testRecordsCarryTypeMetadataSizeAndAddress() {
        let objects = (0..<1000).map { _ in Probe() }
        let expected = Set(objects.map { address(of: $0) })

        let found = records(ofType: Probe.self)

        XCTAssertEqual(Set(found.map(\.address)), expected)
        XCTAssertEqual(found.count, expected.count, "each object is recorded once")
        XCTAssertTrue(found.allSatisfy { $0.size == 32 }, "16-byte header + two Ints")
        XCTAssertTrue(found.allSatisfy({ $0.stackID != nil }))
        withExtendedLifetime(objects) {}
    }

    func testSnapshotIsSortedByAddress() {
        let objects = (0..<100).map { _ in Probe() }
        let sorted = Recorder.withFrozenHeap { records in
            zip(records, records.dropFirst()).allSatisfy { $0.address < $1.address }
        }
        XCTAssertTrue(sorted)
        withExtendedLifetime(objects) {}
    }

    func testStandardLibraryStorageIsRecorded() {
        let numbers = Array(0..<100)
        let storage = numbers.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress!) } - 32
        let record = Recorder.withFrozenHeap { records in records.first { $0.address == storage } }
        XCTAssertNotNil(record, "the array's storage object is recorded")
        XCTAssertGreaterThanOrEqual(record?.size ?? 0, 32 + 100 * MemoryLayout<Int>.stride)
        withExtendedLifetime(numbers) {}
    }

    func testDeadObjectsLeaveTheSnapshot() {
        let freesBefore = Recorder.statistics.trackedFrees
        let survivors = (0..<10).map { _ in Transient() }
        for index in 0..<10_000 {
            let object = Transient()
            object.value = index
            blackHole(object)
        }

        let found = records(ofType: Transient.self)

        XCTAssertEqual(Set(found.map(\.address)), Set(survivors.map { address(of: $0) }))
        XCTAssertGreaterThanOrEqual(Recorder.statistics.trackedFrees - freesBefore, 10_000)
        withExtendedLifetime(survivors) {}
    }

    func testDeinitRunsOnTimeAndWeakReferencesReadNil() {
        let counter = DeinitCounter()
        var object: Mortal? = Mortal(counter: counter)
        weak let weakReference = object
        let objectAddress = address(of: object!)
        XCTAssertNotNil(weakReference)
        XCTAssertEqual(records(ofType: Mortal.self).map(\.address), [objectAddress])

        object = nil

        XCTAssertEqual(counter.count, 1, "deinit ran when the last strong reference went away")
        XCTAssertNil(weakReference)
        XCTAssertTrue(records(ofType: Mortal.self).isEmpty)
    }

    func testOneCallSiteStoresOneStack() {
        let before = Recorder.statistics.distinctStacks
        for _ in 0..<1_000_000 {
            blackHole(Probe())
        }
        let added = Recorder.statistics.distinctStacks - before
        XCTAssertGreaterThanOrEqual(added, 1)
        XCTAssertLessThanOrEqual(added, 3, "a million allocations from one line store one stack")

        var kept: [Probe] = []
        kept.reserveCapacity(100)
        for _ in 0..<100 {
            kept.append(Probe())
        }
        let keptAddresses = Set(kept.map { address(of: $0) })
        let stackIDs = Set(records(ofType: Probe.self).filter { keptAddresses.contains($0.address) }.map(\.stack_id))
        XCTAssertEqual(stackIDs.count, 1)
        XCTAssertFalse(stackIDs.contains(AllocationRecord.noStack))
        withExtendedLifetime(kept) {}
    }

    @inline(never)
    private func makeTracedProbe() -> (TracedProbe, [UInt]) {
        let probe = TracedProbe()
        let here = Thread.callStackReturnAddresses.map(\.uintValue)
        return (probe, here)
    }

    @inline(never)
    private func makeTracedProbeElsewhere() -> TracedProbe {
        TracedProbe()
    }

    func testStackHoldsTheAllocatingCallers() {
        let (probe, unwound) = makeTracedProbe()
        let other = makeTracedProbeElsewhere()
        let found = records(ofType: TracedProbe.self)
        let probeRecord = try! XCTUnwrap(found.first { $0.address == address(of: probe) })
        let otherRecord = try! XCTUnwrap(found.first { $0.address == address(of: other) })

        let frames = Recorder.stack(probeRecord.stack_id)
        XCTAssertFalse(frames.isEmpty)
        XCTAssertLessThanOrEqual(frames.count, Recorder.defaultMaxFrames)
        // The frame-pointer walk and the unwinder agree on the return addresses of the callers
        // (this test method and XCTest's frames above it).
        XCTAssertGreaterThanOrEqual(Set(frames).intersection(unwound).count, 2)
        XCTAssertNotEqual(probeRecord.stack_id, otherRecord.stack_id, "two call sites, two stacks")
        XCTAssertEqual(Recorder.stack(AllocationRecord.noStack), [])
        withExtendedLifetime((probe, other)) {}
    }

    func testAllocationsOnEightThreadsAreAllRecorded() {
        let threadCount = 8
        let perThread = 20_000
        let slots = (0..<threadCount).map { _ in Slot<ThreadProbe>() }
        let start = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        for thread in 0..<threadCount {
            group.enter()
            let slot = slots[thread]
            Thread.detachNewThread {
                start.wait()
                var objects: [ThreadProbe] = []
                objects.reserveCapacity(perThread)
                for index in 0..<perThread {
                    objects.append(ThreadProbe(thread: thread, index: index))
                    // Short-lived garbage in between, so nurseries fill and sweep concurrently.
                    blackHole(Transient())
                }
                slot.values = objects
                group.leave()
            }
        }
        for _ in 0..<threadCount {
            start.signal()
        }
        group.wait()

        let expected = Set(slots.flatMap { $0.values.map { address(of: $0) } })
        let found = records(ofType: ThreadProbe.self)
        XCTAssertEqual(expected.count, threadCount * perThread)
        XCTAssertEqual(Set(found.map(\.address)), expected)
        XCTAssertEqual(found.count, expected.count)
        withExtendedLifetime(slots) {}
    }

    func testIgnoredThreadIsNotRecorded() {
        let ignoredBefore = Recorder.statistics.ignoredAllocations
        let objects = Recorder.ignoringCurrentThread {
            (0..<100).map { _ in Unrecorded() }
        }
        XCTAssertTrue(records(ofType: Unrecorded.self).isEmpty)
        XCTAssertGreaterThanOrEqual(Recorder.statistics.ignoredAllocations - ignoredBefore, 100)

        let recorded = Unrecorded()
        XCTAssertEqual(records(ofType: Unrecorded.self).map(\.address), [address(of: recorded)])
        withExtendedLifetime((objects, recorded)) {}
    }

    func testAllocationsInsideTheFrozenHeapAreNotRecorded() {
        let metadata = metadataAddress(of: Unrecorded.self)
        let inside = Recorder.withFrozenHeap { _ in (0..<50).map { _ in Unrecorded() } }
        let found = Recorder.withFrozenHeap { records in records.filter { $0.metadata == metadata } }
        XCTAssertTrue(found.isEmpty)
        withExtendedLifetime(inside) {}
    }

    func testOtherThreadsWaitWhileTheHeapIsFrozen() {
        let go = DispatchSemaphore(value: 0)
        let allocated = DispatchSemaphore(value: 0)
        let slot = Slot<LateProbe>()
        Thread.detachNewThread {
            go.wait()
            slot.values = [LateProbe()]
            allocated.signal()
        }
        let finishedWhileFrozen = Recorder.withFrozenHeap { _ in
            go.signal()
            return allocated.wait(timeout: .now() + .milliseconds(300)) == .success
        }
        XCTAssertFalse(finishedWhileFrozen, "an allocating thread waits for the unfreeze")
        allocated.wait()
        XCTAssertEqual(records(ofType: LateProbe.self).map(\.address), slot.values.map { address(of: $0) })
    }

    func testNestedFreezeReturnsTheSameSnapshot() {
        let objects = (0..<10).map { _ in Probe() }
        let (outer, inner) = Recorder.withFrozenHeap { outer in
            (outer.map(\.address), Recorder.withFrozenHeap { $0.map(\.address) })
        }
        XCTAssertFalse(outer.isEmpty)
        XCTAssertEqual(outer, inner)
        withExtendedLifetime(objects) {}
    }

    func testRecordedMemoryStaysReadableWhileOtherThreadsChurn() {
        final class StopFlag: Sendable {
            let value = Atomic<Bool>(false)
        }
        let stop = StopFlag()
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                var window: [Transient] = []
                var counter = 0
                while !stop.value.load(ordering: .relaxed) {
                    let object = Transient()
                    object.value = counter
                    if window.count < 64 {
                        window.append(object)
                    } else {
                        window[counter % 64] = object
                    }
                    counter += 1
                }
                group.leave()
            }
        }
        let transient = metadataAddress(of: Transient.self)
        var checked = 0
        var mismatches = 0
        for _ in 0..<20 {
            Recorder.withFrozenHeap { records in
                for record in records where record.metadata == transient {
                    // A live (or deinitialized, not yet freed) Transient has an inline refcount word
                    // with small counts; memory freed to malloc holds its free-list key there.
                    let bits = UnsafeRawPointer(bitPattern: record.address)!.load(fromByteOffset: 8, as: UInt64.self)
                    let strongExtra = (bits >> 33) & 0x3FFF_FFFF
                    let unowned = (bits >> 1) & 0x7FFF_FFFF
                    if bits >> 62 != 0 || strongExtra > 16 || unowned > 16 || record.size != 24 { mismatches += 1 }
                    checked += 1
                }
            }
            usleep(5_000)
        }
        stop.value.store(true, ordering: .relaxed)
        group.wait()
        XCTAssertGreaterThan(checked, 0)
        XCTAssertEqual(mismatches, 0)
    }
}
