import Inbox
import LeakGraphTesting
import Testing

@Suite(.checksForLeaks)
struct InboxSuite {
    @Test func inboxShowsLoadedMessages() {
        let inbox = InboxViewController()
        inbox.viewDidLoad()
        inbox.loader.load()
        #expect(inbox.messages == ["hello", "again"])
    }

    @Test func conversationKeepsItsParticipants() async {
        let conversation = Conversation()
        conversation.add("alice")
        await Task.yield()
        #expect(conversation.participants.count == 1)
    }

    @Test func ignoredTypesDoNotFail() async {
        await assertNoLeaks(.ignoring(types: ["Conversation"])) {
            Conversation().add("dave")
        }
    }
}
