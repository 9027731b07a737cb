import Foundation
import XCTest

@testable import LeakGraphRecording

/// The Swift 6.3 runtime routes `swift_retain` through an adapter that crashes on tagged values once
/// the allocator is hooked. Without the recorder's workaround each of these tests dies with
/// "Bad pointer dereference" in `__swift_retain_` called from `_swift_retain_adapterImpl`.
final class RetainAdapterTests: XCTestCase {
    private typealias RetainFunction = @convention(c) (UInt) -> UInt
    private typealias CountFunction = @convention(c) (UInt) -> Int
    private typealias ReleaseFunction = @convention(c) (UInt) -> Void

    private func runtimeFunction<T>(_ name: String, as type: T.Type) throws -> T {
        let symbol = try XCTUnwrap(dlsym(nil, name), "\(name) not found")
        return unsafeBitCast(symbol, to: type)
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        try Recorder.install()
        // The runtime turns swizzling on at the first allocation after the hook is installed.
        blackHole(Probe())
        let flag = try XCTUnwrap(
            dlsym(nil, "_swift_enableSwizzlingOfAllocationAndRefCountingFunctions_forInstrumentsOnly"))
        XCTAssertTrue(flag.load(as: Bool.self), "retains now go through the runtime's adapter")
    }

    func testWorkaroundIsGatedOnTheRuntimeVersion() {
        let statistics = Recorder.statistics
        let isSwift63 = statistics.runtimeVersion >> 8 == 0x0603
        XCTAssertEqual(statistics.retainAdapterReplaced, isSwift63)
        XCTAssertNotEqual(statistics.runtimeVersion, 0)
    }

    func testRetainOfTaggedValuesReturnsThemUntouched() throws {
        let retain = try runtimeFunction("swift_retain", as: RetainFunction.self)
        let bridgeRetain = try runtimeFunction("swift_bridgeObjectRetain", as: RetainFunction.self)
        // A small string's bridge object: discriminator 0xE3 in the top byte, "abc" below.
        let smallString: UInt = 0xE300_0000_0063_6261
        XCTAssertEqual(retain(smallString), smallString)
        XCTAssertEqual(bridgeRetain(smallString), smallString)
        XCTAssertEqual(retain(UInt.max), UInt.max)
        XCTAssertEqual(retain(0), 0)
    }

    func testRetainOfRealObjectsStillCounts() throws {
        let retain = try runtimeFunction("swift_retain", as: RetainFunction.self)
        let release = try runtimeFunction("swift_release", as: ReleaseFunction.self)
        let retainCount = try runtimeFunction("swift_retainCount", as: CountFunction.self)
        let object = Probe()
        let objectAddress = address(of: object)
        let before = retainCount(objectAddress)

        XCTAssertEqual(retain(objectAddress), objectAddress)
        XCTAssertEqual(retainCount(objectAddress), before + 1)
        release(objectAddress)
        XCTAssertEqual(retainCount(objectAddress), before)
        withExtendedLifetime(object) {}
    }

    func testSmallStringsCopyIntoExistentials() {
        // What crashed when probed without the workaround: `print("installed")` copies a small
        // String into an `Any`, whose value witness retains the bridge object 0xE9...
        let word: String = "abc"
        let boxed: [Any] = [word, word, "installed"]
        XCTAssertEqual(boxed.compactMap { $0 as? String }, ["abc", "abc", "installed"])
        XCTAssertEqual(String(describing: boxed[0]), "abc")
        let object = word as AnyObject
        XCTAssertEqual(object as? String, "abc")
    }
}
