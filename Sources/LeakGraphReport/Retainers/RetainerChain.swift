import LeakGraphModel

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

    /// What holds the root: where the scan of the process's memory found a word pointing at it (the
    /// model's ``LeakGraphModel/RootHolder``, which heap snapshots share).
    public typealias Holder = RootHolder

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
