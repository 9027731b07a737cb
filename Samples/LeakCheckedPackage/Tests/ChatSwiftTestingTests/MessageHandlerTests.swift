import Chat
import Testing

/// Swift Testing tests of ``MessageHandler``: leak a MessageHandler ⇄ Connection cycle (through the
/// closure) unless `LEAKCHECKED_WIRING=fixed`.
@Suite struct MessageHandlerTests {
    @Test func countsDeliveredMessages() {
        let handler = MessageHandler(wiring: .fromEnvironment)
        handler.connection.deliver("hello")
        handler.connection.deliver("again")
        #expect(handler.received == 2)
    }
}
