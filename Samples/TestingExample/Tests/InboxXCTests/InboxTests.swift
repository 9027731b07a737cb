import Inbox
import LeakGraphTesting
import XCTest

final class InboxTests: XCTestCase {
    func testInboxShowsLoadedMessages() {
        assertNoLeaks {
            let inbox = InboxViewController()
            inbox.viewDidLoad()
            inbox.loader.load()
            XCTAssertEqual(inbox.messages, ["hello", "again"])
        }
    }

    func testConversationKeepsItsParticipants() async {
        await assertNoLeaks {
            let conversation = Conversation()
            conversation.add("alice")
            conversation.add("bob")
            await Task.yield()
            XCTAssertEqual(conversation.participants.count, 2)
        }
    }

    /// The cycle is made on a thread no task runs on: attributed to the check while it is the only
    /// one open (XCTest runs tests one at a time).
    func testConversationMadeOnAnotherThread() {
        assertNoLeaks {
            let made = expectation(description: "made")
            runOnAnotherThread {
                Conversation().add("carol")
                made.fulfill()
            }
            wait(for: [made], timeout: 10)
        }
    }
}
