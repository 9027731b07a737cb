/// One change of an object's strong retain count that the history recorder saw (`leakgraph run
/// --history TYPE`): its allocation (the first +1), a retain or a release, with the stack of the code
/// that made it.
public struct RetainEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The object was allocated: its first strong reference (its stack is the creation stack).
        case allocation
        /// `swift_retain` (or `swift_retain_n`, a successful `swift_tryRetain`): `count` more.
        case retain
        /// `swift_release` (or `swift_release_n`): `count` fewer.
        case release
        /// Not a change of the count: a write into this object (a modify access the compiler checks for
        /// exclusivity before a store into a stored property) at ``RetainEvent/address``.
        case write
    }

    /// What happened.
    public var kind: Kind
    /// How many retains or releases (1 unless the runtime was asked for several at once).
    public var count: Int
    /// The stack of the code that made it (see the recorder's stacks), innermost first; `nil` when
    /// none was recorded.
    public var stackID: UInt32?
    /// A small number for the thread that made it (1, 2, … in the order threads first recorded one).
    public var thread: Int
    /// The frame pointer of the function that called the runtime: two events of one call of a function
    /// have the same `frame` and `thread`; 0 when unknown.
    public var frame: UInt64
    /// The event's position in the process's history (all objects, all threads): earlier is smaller.
    public var sequence: Int
    /// For a ``Kind/write``: the address written (inside the object); 0 otherwise.
    public var address: UInt64 = 0

    /// Creates an event.
    public init(
        kind: Kind, count: Int = 1, stackID: UInt32?, thread: Int = 1, frame: UInt64 = 0, sequence: Int,
        address: UInt64 = 0
    ) {
        self.address = address
        self.kind = kind
        self.count = count
        self.stackID = stackID
        self.thread = thread
        self.frame = frame
        self.sequence = sequence
    }

    /// `+count` for an allocation or a retain, `-count` for a release, 0 for a write.
    public var delta: Int {
        switch kind {
        case .release: -count
        case .write: 0
        case .allocation, .retain: count
        }
    }
}

/// Every strong retain and release of one object since its allocation, in order.
public struct RetainHistory: Sendable, Hashable {
    /// The events, oldest first; the first is the allocation when ``complete``.
    public var events: [RetainEvent]
    /// Whether the history starts at the object's allocation and the recorder lost no event: only then
    /// do its retains and releases add up to the object's retain count.
    public var complete: Bool

    /// Creates a history.
    public init(events: [RetainEvent], complete: Bool) {
        self.events = events
        self.complete = complete
    }

    /// The retain count the events add up to.
    public var netCount: Int { events.reduce(0) { $0 + $1.delta } }
}
