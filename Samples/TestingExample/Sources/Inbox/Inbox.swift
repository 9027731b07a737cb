#if canImport(Glibc)
import Glibc
#endif

/// Whether the example's types close their retain cycles (the mistake) or break them (the fix).
public enum Wiring: Sendable {
    case leaking
    case fixed

    /// `.fixed` when `LEAKGRAPH_EXAMPLE_WIRING=fixed`, else `.leaking`: one build checks both forms.
    public static var current: Wiring {
        getenv("LEAKGRAPH_EXAMPLE_WIRING").map { String(cString: $0) } == "fixed" ? .fixed : .leaking
    }
}

/// A screen listing messages; it refreshes through a closure it hands to its loader.
public final class InboxViewController {
    public let loader = MessageLoader()
    public private(set) var messages: [String] = []

    public init() {}

    /// Installs the loader's completion handler: strong `self` in the leaking form.
    public func viewDidLoad() {
        switch Wiring.current {
        case .leaking:
            loader.onLoad = { messages in self.messages = messages }
        case .fixed:
            loader.onLoad = { [weak self] messages in self?.messages = messages }
        }
    }
}

/// Loads messages and calls back.
public final class MessageLoader {
    public var onLoad: (([String]) -> Void)?

    public init() {}

    public func load() {
        onLoad?(["hello", "again"])
    }

}

/// Runs `work` on a new thread, as a callback of a C library would.
public func runOnAnotherThread(_ work: @escaping @Sendable () -> Void) {
    PlainThread(work).start()
}

/// A thread that runs a block: enough for the example without Foundation.
final class PlainThread: @unchecked Sendable {
    private let block: () -> Void
    private var handle = pthread_t()

    init(_ block: @escaping () -> Void) { self.block = block }

    func start() {
        let box = Unmanaged.passRetained(self)
        pthread_create(&handle, nil, { argument in
            let thread = Unmanaged<PlainThread>.fromOpaque(argument!).takeRetainedValue()
            thread.block()
            return nil
        }, box.toOpaque())
        pthread_detach(handle)
    }
}

/// A conversation and its participants: a parent/child pair.
public final class Conversation {
    public private(set) var participants: [Participant] = []

    public init() {}

    @discardableResult
    public func add(_ name: String) -> Participant {
        let participant = Participant(name: name)
        switch Wiring.current {
        case .leaking: participant.conversation = self
        case .fixed: participant.weakConversation = self
        }
        participants.append(participant)
        return participant
    }
}

public final class Participant {
    public let name: String
    var conversation: Conversation?
    weak var weakConversation: Conversation?

    init(name: String) { self.name = name }
}
