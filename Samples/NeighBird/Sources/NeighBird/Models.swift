/// A neighbour using the app.
final class User {
    let handle: String
    var displayName: String

    init(handle: String, displayName: String) {
        self.handle = handle
        self.displayName = displayName
    }
}

/// A neighbourhood group and its members.
final class Group {
    let name: String
    private(set) var members: [User]

    init(name: String, members: [User]) {
        self.name = name
        self.members = members
    }
}

/// What a message carries.
enum MessageBody {
    case text(String)
    case sighting(species: String, place: String)
}

/// One message posted to a group.
final class Message {
    let author: User
    let body: MessageBody

    init(author: User, body: MessageBody) {
        self.author = author
        self.body = body
    }
}

/// A group's message stream: messages as they arrive, handed to one observer.
final class MessageFeed {
    let group: Group
    private(set) var messages: [Message] = []
    /// The observer, called with every new message.
    var onMessage: ((Message) -> Void)?

    init(group: Group) {
        self.group = group
    }

    func receive(_ message: Message) {
        messages.append(message)
        onMessage?(message)
    }
}
