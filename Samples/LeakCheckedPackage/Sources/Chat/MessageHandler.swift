/// Counts the messages a connection delivers through a closure: a closure capturing its holder.
///
/// In ``Wiring/leaking`` the connection's `onMessage` closure captures the handler strongly and the
/// handler holds the connection; in ``Wiring/fixed`` the closure captures `[weak self]`.
public final class MessageHandler {
    /// The connection whose messages are counted.
    public let connection = Connection()
    /// The messages seen so far.
    public private(set) var received = 0

    /// Creates a handler and installs its closure on the connection.
    public init(wiring: Wiring) {
        switch wiring {
        case .leaking:
            connection.onMessage = { _ in self.received += 1 }
        case .fixed:
            connection.onMessage = { [weak self] _ in self?.received += 1 }
        }
    }
}

/// A source of messages.
public final class Connection {
    /// Called with every delivered message.
    public var onMessage: (String) -> Void = { _ in }

    /// Delivers `message` to ``onMessage``.
    public func deliver(_ message: String) {
        onMessage(message)
    }
}
