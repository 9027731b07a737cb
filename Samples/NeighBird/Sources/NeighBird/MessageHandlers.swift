/// Turns one kind of message into the row the chat shows.
protocol MessageHandler: AnyObject {
    func row(for message: Message) -> String?
}

/// Plain text messages.
final class TextMessageHandler: MessageHandler {
    func row(for message: Message) -> String? {
        guard case .text(let text) = message.body else { return nil }
        return "\(message.author.displayName): \(text)"
    }
}

/// Bird sightings, with the species first.
final class SightingMessageHandler: MessageHandler {
    private(set) var sightings = 0

    func row(for message: Message) -> String? {
        guard case .sighting(let species, let place) = message.body else { return nil }
        sightings += 1
        return "\(species) seen at \(place) by \(message.author.displayName)"
    }
}
