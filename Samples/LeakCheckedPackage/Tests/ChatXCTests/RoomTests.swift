import Chat
import XCTest

/// XCTest tests of ``Room``: leak a Room ⇄ Member cycle unless `LEAKCHECKED_WIRING=fixed`.
final class RoomTests: XCTestCase {
    func testMembersKnowTheirRoom() {
        let room = Room(name: "general", wiring: .fromEnvironment)
        let alice = room.join("alice")
        room.join("bob")
        XCTAssertEqual(room.members.map(\.name), ["alice", "bob"])
        XCTAssertTrue(alice.currentRoom === room)
    }

    /// Fails on purpose when `LEAKCHECKED_FAIL=1`, so that the status of failing tests can be checked.
    func testFailsOnRequest() {
        XCTAssertNil(ProcessInfo.processInfo.environment["LEAKCHECKED_FAIL"], "asked to fail")
    }
}
