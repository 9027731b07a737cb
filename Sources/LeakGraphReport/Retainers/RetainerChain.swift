/// Why an object is still alive: the shortest chain of strong references from a root — an object held
/// from outside the heap — to it, each step labelled, and what holds the root.
///
/// Made by `LeakChecker.retainers(of:)` and `LeakChecker.expectDeallocation(of:within:)`, and by
/// `leakgraph run --why TYPE` (``LeakReport/retainers``). Addresses are hexadecimal strings, as in the
/// rest of the report.
public struct RetainerChain: Sendable, Codable, Hashable {
    /// One object of the chain.
    public struct Link: Sendable, Codable, Hashable {
        /// The object's type, fully qualified (as ``LeakReport/Leak/type``).
        public var type: String
        /// The object's address, `0x…`.
        public var address: String
        /// Its strong retain count when the chain was taken.
        public var retainCount: Int
        /// The label of the strong reference from the previous object of the chain to this one
        /// (`observers`, `[3]`, `handler (closure)`); `nil` for the root.
        public var label: String?

        /// Creates a link.
        public init(type: String, address: String, retainCount: Int, label: String? = nil) {
            self.type = type
            self.address = address
            self.retainCount = retainCount
            self.label = label
        }
    }

    /// What holds the root: where the scan of the process's memory found a word pointing at it.
    public struct Holder: Sendable, Codable, Hashable {
        /// Where the holding word lives.
        public enum Kind: String, Sendable, Codable, Hashable {
            /// A global or static variable (``name`` is its symbol, demangled).
            case global
            /// A thread's stack: a local variable or a register a function saved.
            case stack
            /// Memory no Swift metadata describes: a malloc block, a C or C++ structure.
            case untrackedMemory
            /// A field of a tracked object the walk could not read (``name`` is its type).
            case unreadField
            /// Not found: a register of a running thread, an encoded pointer, memory outside the
            /// process (a kernel queue, another process), or the scan was not run.
            case unknown
        }

        /// Where the holding word lives.
        public var kind: Kind
        /// The global's symbol (demangled: `static App.NotificationCentre.shared`), or the type whose
        /// unread field holds the root; `nil` when unknown.
        public var name: String?
        /// The module (file name) or mapping the word lies in, when known.
        public var location: String?
        /// The address of the holding word, `0x…`, when found.
        public var address: String?

        /// Creates a holder.
        public init(kind: Kind, name: String? = nil, location: String? = nil, address: String? = nil) {
            self.kind = kind
            self.name = name
            self.location = location
            self.address = address
        }
    }

    /// The chain, root first, the object asked about last (a single link when it is a root itself).
    public var links: [Link]
    /// What holds the root.
    public var holder: Holder
    /// The root's retains that no strong reference read by the walk explains (what ``holder`` stands
    /// for; at least 1).
    public var unexplainedRetains: Int

    /// Creates a chain.
    public init(links: [Link], holder: Holder, unexplainedRetains: Int) {
        self.links = links
        self.holder = holder
        self.unexplainedRetains = unexplainedRetains
    }

    /// The object asked about (the last link).
    public var target: Link { links[links.count - 1] }
    /// The root (the first link).
    public var root: Link { links[0] }
}
