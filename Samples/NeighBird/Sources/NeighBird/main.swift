// NeighBird: the object graph of a neighbourhood bird-watching chat app, in plain Swift.
//
//     NeighBird [leak]   the chat screen's message observer closure captures the screen, and its slide
//                        control holds it as a strong `SlideControlDelegate`: one root cycle through the
//                        screen, with two references to cut; it holds the feed, the messages, the group
//                        and its users.
//     NeighBird fixed    `[weak self]` in the observer and `weak var delegate`: everything is freed.
//     NeighBird task     fixed as above, but the refresh task waits forever and captures the screen
//                        strongly: a cycle through a Task (see the README).

/// Opens a group's chat, receives two messages, slides the text size, refreshes, and closes the chat.
/// Returns the number of rows the chat showed.
@MainActor
@inline(never)
func openChat() async -> Int {
    let ana = User(handle: "ana", displayName: "Ana")
    let ben = User(handle: "ben", displayName: "Ben")
    let chloe = User(handle: "chloe", displayName: "Chloé")
    let group = Group(name: "Riverside birders", members: [ana, ben, chloe])
    let chat = ChatViewController(feed: MessageFeed(group: group))
    chat.viewDidLoad()
    chat.startRefreshing()
    chat.feed.receive(Message(author: ben, body: .text("Anyone at the pond this morning?")))
    chat.feed.receive(Message(author: chloe, body: .sighting(species: "Grey heron", place: "the pond")))
    chat.textSize.slide(to: 0.8)
    await chat.refreshed()
    chat.viewDidDisappear()
    return chat.rows.count
}

let rows = await openChat()
print("NeighBird (\(mode.rawValue)): the chat showed \(rows) messages; \(freedChatScreens) of 1 chat screens were freed.")
