/// The chat screen of one group: shows its messages, resizes the text with a slide control and
/// refreshes the member list in a task.
@MainActor
final class ChatViewController: SlideControlDelegate {
    let feed: MessageFeed
    let textSize = SlideControl()
    let handlers: [any MessageHandler] = [TextMessageHandler(), SightingMessageHandler()]
    private(set) var rows: [String] = []
    private(set) var fontSize = 15.0
    private(set) var refreshes = 0
    private var refreshTask: Task<Void, Never>?
    /// Member-list updates the `task` mode's refresh task waits for (none ever come).
    private var memberUpdates: AsyncStream<Void>.Continuation?

    init(feed: MessageFeed) {
        self.feed = feed
    }

    deinit {
        freedChatScreens += 1
    }

    func viewDidLoad() {
        if mode == .leak {
            // THE LEAK: the feed keeps this closure, and the closure keeps the screen.
            feed.onMessage = { message in self.show(message) }
        } else {
            // THE FIX: capture the screen weakly.
            feed.onMessage = { [weak self] message in self?.show(message) }
        }
        textSize.setDelegate(self)
    }

    /// Starts refreshing the group in a task, as `.task { }` or `viewWillAppear` would.
    func startRefreshing() {
        if mode == .task {
            // A Task-held cycle: the screen keeps the task, the task keeps the screen while it waits for
            // member updates that never come.
            let (updates, continuation) = AsyncStream<Void>.makeStream()
            memberUpdates = continuation
            refreshTask = Task {
                for await _ in updates {
                    self.refreshes += 1
                }
            }
        } else {
            // Done right: a task that finishes, holding the screen weakly.
            refreshTask = Task { [weak self] in
                await Task.yield()
                self?.refreshes += 1
            }
        }
    }

    /// Waits for the refresh to finish (`task` mode: it never does, so it waits only until the task
    /// is suspended waiting for member updates).
    func refreshed() async {
        if mode != .task {
            await refreshTask?.value
        } else {
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    func viewDidDisappear() {
        if mode != .task {
            refreshTask = nil
        }
    }

    func show(_ message: Message) {
        for handler in handlers {
            if let row = handler.row(for: message) {
                rows.append(row)
                return
            }
        }
    }

    func slideControl(_ control: SlideControl, didSlideTo value: Double) {
        fontSize = 11 + 10 * value
    }
}
