import Chat
import Testing

/// Swift Testing tests of ``MessageHandler``, run in parallel: three tests leak the same
/// MessageHandler ⇄ Connection cycle (through the closure) unless `LEAKCHECKED_WIRING=fixed` — one in a
/// task it starts —, one leaks nothing, one leaks a Room ⇄ Member cycle.
@Suite struct MessageHandlerTests {
    @Test func countsDeliveredMessages() {
        let handler = MessageHandler(wiring: .fromEnvironment)
        handler.connection.deliver("hello")
        handler.connection.deliver("again")
        #expect(handler.received == 2)
    }

    @Test func countsRepeatedMessages() async {
        let handler = MessageHandler(wiring: .fromEnvironment)
        for _ in 0..<3 {
            handler.connection.deliver("ping")
            await Task.yield()
        }
        #expect(handler.received == 3)
    }

    @Test func countsMessagesFromATask() async {
        let received = await Task {
            let handler = MessageHandler(wiring: .fromEnvironment)
            handler.connection.deliver("from a task")
            return handler.received
        }.value
        #expect(received == 1)
    }

    @Test func fixedHandlerLeaksNothing() {
        let handler = MessageHandler(wiring: .fixed)
        handler.connection.deliver("hello")
        #expect(handler.received == 1)
    }

    @Test func roomsInSwiftTesting() {
        let room = Room(name: "testing", wiring: .fromEnvironment)
        room.join("frank")
        #expect(room.members.count == 1)
    }
}
