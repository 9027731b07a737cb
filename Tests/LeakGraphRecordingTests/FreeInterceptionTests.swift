import Foundation
import XCTest

@testable import LeakGraphRecording

/// Objects held only by an unowned reference after their last strong one went away.
final class UnownedTarget {
    var value = 7
}

/// Holds an unowned reference.
final class UnownedHolder {
    unowned let target: UnownedTarget

    init(target: UnownedTarget) {
        self.target = target
    }
}

/// Objects released by the thread that holds the frozen heap.
final class ReleasedWhileFrozen {
    var value = 0
}

/// Objects another thread releases while the heap is frozen.
final class ReleasedElsewhere: @unchecked Sendable {
    var value = 0
}

/// Objects made with `swift_allocObject` and freed with plain `free()`, as CoreFoundation does with
/// its temporary URL objects.
final class FreedBehindTheRuntime {
    var first = 0
    var second = 0
}

/// The recorder learns of deaths from `free()`. In this test process (no preloaded library) that
/// works through the patched `free` imports of the loaded modules.
final class FreeInterceptionTests: XCTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try Recorder.install()
    }

    func testFreesReachTheRecorderThroughPatchedImports() {
        guard case .patchedImports(let count) = Recorder.statistics.freeInterception else {
            return XCTFail("in-process recording patches free imports, got \(Recorder.statistics.freeInterception)")
        }
        // At least libswiftCore, libFoundation(Essentials), libdispatch and this test executable.
        XCTAssertGreaterThanOrEqual(count, 4)
    }

    func testTaskCreationImportsArePatchedToo() {
        // Tasks are not allocated through _swift_allocObject: the modules that create them (this test
        // executable, FoundationEssentials, XCTest) call swift_task_create through their imports.
        XCTAssertGreaterThanOrEqual(Recorder.statistics.patchedTaskImports, 1)
    }

    func testPlainFreeOfARecordedObjectDropsItsRecord() throws {
        typealias Allocate = @convention(c) (UnsafeRawPointer, Int, Int) -> UnsafeMutableRawPointer
        let allocate = unsafeBitCast(try XCTUnwrap(dlsym(nil, "swift_allocObject")), to: Allocate.self)
        let metadata = UnsafeRawPointer(bitPattern: metadataAddress(of: FreedBehindTheRuntime.self))!
        let object = allocate(metadata, 32, 15)
        let objectAddress = UInt(bitPattern: object)
        XCTAssertEqual(records(ofType: FreedBehindTheRuntime.self).map(\.address), [objectAddress])

        free(object)

        XCTAssertTrue(records(ofType: FreedBehindTheRuntime.self).isEmpty, "free() dropped the record")
        // Memory malloc hands out again is not named by any record.
        let reused = (0..<64).map { _ in malloc(32)! }
        let addresses = Set(Recorder.withFrozenHeap { $0.map(\.address) })
        XCTAssertTrue(reused.allSatisfy { !addresses.contains(UInt(bitPattern: $0)) })
        reused.forEach { free($0) }
    }

    func testDeinitializedObjectHeldByUnownedKeepsItsRecordUntilFreed() {
        var target: UnownedTarget? = UnownedTarget()
        let targetAddress = address(of: target!)
        let holder = UnownedHolder(target: target!)

        target = nil  // deinit runs; the unowned reference keeps the memory

        let deinitialized = Recorder.withFrozenHeap { records -> Bool? in
            guard let record = records.first(where: { $0.address == targetAddress }) else { return nil }
            let refcounts = UnsafeRawPointer(bitPattern: record.address)!.load(fromByteOffset: 8, as: UInt64.self)
            return refcounts & (1 << 32) != 0  // IsDeiniting
        }
        XCTAssertEqual(deinitialized, true, "the record stays while unowned references hold the memory")

        withExtendedLifetime(holder) {}
        _ = consume holder
        XCTAssertFalse(records(ofType: UnownedTarget.self).contains { $0.address == targetAddress })
    }

    func testFreesByTheFreezingThreadAreDeferredUntilUnfreeze() {
        var objects: [ReleasedWhileFrozen]? = (0..<100).map { _ in ReleasedWhileFrozen() }
        let addresses = Set(objects!.map { address(of: $0) })
        let metadata = UInt(bitPattern: unsafeBitCast(ReleasedWhileFrozen.self, to: UnsafeRawPointer.self))
        let deferredBefore = Recorder.statistics.deferredFrees

        let (inSnapshot, stillReadable) = Recorder.withFrozenHeap { records -> (Int, Bool) in
            let mine = records.filter { addresses.contains($0.address) }
            objects = nil  // released here, while this thread holds the frozen heap: no deadlock
            let readable = mine.allSatisfy {
                UnsafeRawPointer(bitPattern: $0.address)!.load(as: UInt.self) == metadata
            }
            return (mine.count, readable)
        }

        XCTAssertEqual(inSnapshot, 100)
        XCTAssertTrue(stillReadable, "memory freed during the freeze stays valid until unfreeze")
        XCTAssertGreaterThanOrEqual(Recorder.statistics.deferredFrees - deferredBefore, 100)
        XCTAssertTrue(records(ofType: ReleasedWhileFrozen.self).isEmpty, "the deferred frees ran")
    }

    func testFreesOnOtherThreadsWaitForTheUnfreeze() {
        let slot = Slot<ReleasedElsewhere>()
        slot.values = [ReleasedElsewhere()]
        let objectAddress = address(of: slot.values[0])
        let go = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            go.wait()
            slot.values = []
            released.signal()
        }
        let (finishedWhileFrozen, recordKept) = Recorder.withFrozenHeap { records in
            go.signal()
            let finished = released.wait(timeout: .now() + .milliseconds(300)) == .success
            return (finished, records.contains { $0.address == objectAddress })
        }
        XCTAssertFalse(finishedWhileFrozen, "a thread freeing a recorded object waits for the unfreeze")
        XCTAssertTrue(recordKept)
        released.wait()
        XCTAssertFalse(records(ofType: ReleasedElsewhere.self).contains { $0.address == objectAddress })
    }
}
