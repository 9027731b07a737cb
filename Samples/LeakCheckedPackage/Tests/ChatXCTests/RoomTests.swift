import Chat
import XCTest

/// XCTest tests of ``Room``: two tests leak the same Room ⇄ Member cycle (one leak family made by two
/// tests) unless `LEAKCHECKED_WIRING=fixed`; one test leaks nothing; one measures (XCTest's own
/// `measure {}` cycle, a known library leak); the class set-up leaks a MessageHandler ⇄ Connection cycle
/// outside any test.
final class RoomTests: XCTestCase {
    /// Kept by the class while its tests run: made in the class set-up, outside any test.
    nonisolated(unsafe) static var lobby: MessageHandler?

    override class func setUp() {
        super.setUp()
        lobby = MessageHandler(wiring: .fromEnvironment)
    }

    override class func tearDown() {
        lobby = nil
        super.tearDown()
    }

    func testMembersKnowTheirRoom() {
        let room = Room(name: "general", wiring: .fromEnvironment)
        let alice = room.join("alice")
        room.join("bob")
        XCTAssertEqual(room.members.map(\.name), ["alice", "bob"])
        XCTAssertTrue(alice.currentRoom === room)
    }

    func testMembersCanRejoin() {
        let room = Room(name: "random", wiring: .fromEnvironment)
        room.join("carol")
        let dave = room.join("dave")
        XCTAssertTrue(dave.currentRoom === room)
    }

    func testRoomKeepsItsName() {
        XCTAssertEqual(Room(name: "quiet", wiring: .fromEnvironment).name, "quiet")
    }

    func testJoiningIsQuick() {
        measure {
            _ = Room(name: "measured", wiring: .fixed).join("erin")
        }
    }

    /// Fails on purpose when `LEAKCHECKED_FAIL=1`, so that the status of failing tests can be checked.
    func testFailsOnRequest() {
        XCTAssertNil(ProcessInfo.processInfo.environment["LEAKCHECKED_FAIL"], "asked to fail")
    }
}
