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
        /// Where the strong reference from the previous object of the chain to this one is stored
        /// (`observers`, `[3]`, `handler (closure)`); `nil` for the root. Read from JSON written before
        /// paths were stored as one ``LeakGraphModel/PathStep/label(_:)`` step holding its label.
        public var path: ReferencePath?

        /// The reference's label: its path's text (``LeakGraphModel/ReferencePath/text``); `nil` for the root.
        public var label: String? { path?.text }

        /// Creates a link.
        public init(type: String, address: String, retainCount: Int, path: ReferencePath? = nil) {
            self.type = type
            self.address = address
            self.retainCount = retainCount
            self.path = path
        }

        /// Creates a link whose reference is known by its label alone.
        public init(type: String, address: String, retainCount: Int, label: String?) {
            self.init(type: type, address: address, retainCount: retainCount, path: label.map { [.label($0)] })
        }

        /// Reads a link; one written before paths were stored gets its label as a one-step path.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try container.decode(String.self, forKey: .type)
            address = try container.decode(String.self, forKey: .address)
            retainCount = try container.decode(Int.self, forKey: .retainCount)
            if let path = try container.decodeIfPresent(ReferencePath.self, forKey: .path) {
                self.path = path
            } else {
                path = try container.decodeIfPresent(String.self, forKey: .label).map { [.label($0)] }
            }
        }

        /// Writes the link with both its `label` (the path's text) and its `path` (the steps).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try container.encode(address, forKey: .address)
            try container.encode(retainCount, forKey: .retainCount)
            try container.encodeIfPresent(label, forKey: .label)
            try container.encodeIfPresent(path, forKey: .path)
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
