/// What holds a root — an object held from outside the heap: where the holder scan found a word
/// pointing at it (a global by its symbol, a thread's stack, memory no metadata describes).
public struct RootHolder: Sendable, Codable, Hashable {
    /// Where the holding word lives.
    public enum Kind: String, Sendable, Codable, Hashable, CaseIterable {
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

    /// The JSON keys, for the `Codable` conformance and the report's writer.
    package enum CodingKeys: String, CodingKey {
        case kind, name, location, address
    }

    /// `global static App.Cache.shared (in app)`, `a thread's stack (the main thread)`, `untracked memory`:
    /// one line for people.
    public var text: String {
        switch kind {
        case .global:
            let name = self.name.map { "global `\($0)`" } ?? "a global variable"
            return name + (location.map { " (in \($0))" } ?? "")
        case .stack:
            return "the stack of " + (location ?? "a thread")
        case .untrackedMemory:
            return "memory no Swift metadata describes" + (location.map { " (\($0))" } ?? "")
        case .unreadField:
            return "a field of \(name ?? "an object") the walk could not read"
        case .unknown:
            return "not found (a register, an encoded pointer, or memory outside the process)"
        }
    }
}
