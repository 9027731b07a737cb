/// A chat room and its members: a parent/child pair.
///
/// The room holds its members strongly. In ``Wiring/leaking`` each member holds its room strongly too
/// (`Member.room`), a retain cycle that outlives every variable; in ``Wiring/fixed`` it is `weak`.
public final class Room {
    /// The room's name.
    public let name: String
    /// The members, held strongly.
    public private(set) var members: [Member] = []
    /// How members refer back to the room.
    public let wiring: Wiring

    /// Creates an empty room.
    public init(name: String, wiring: Wiring) {
        self.name = name
        self.wiring = wiring
    }

    /// Adds a member named `name` and returns it.
    @discardableResult
    public func join(_ name: String) -> Member {
        let member = Member(name: name)
        switch wiring {
        case .leaking: member.room = self
        case .fixed: member.weakRoom = self
        }
        members.append(member)
        return member
    }
}

/// A member of a ``Room``.
public final class Member {
    /// The member's name.
    public let name: String
    /// The room, held strongly: the leaking back-reference.
    var room: Room?
    /// The room, held weakly: the fix.
    weak var weakRoom: Room?

    /// The room this member joined.
    public var currentRoom: Room? { room ?? weakRoom }

    init(name: String) {
        self.name = name
    }
}
