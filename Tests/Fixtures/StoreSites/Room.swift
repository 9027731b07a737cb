// The back reference set in a method of another type (mode backReference), and the +1 passed up
// through three calls (mode passedUp).

final class Room {
    let name: String
    var members: [Member] = []

    init(name: String) {
        self.name = name
    }

    @inline(never)
    func admit(_ member: Member, weakly: Bool) {
        members.append(member)
        if weakly {
            member.weakRoom = self
        } else {
            member.room = self  // store: backReference Member.room
        }
    }
}

final class Member {
    let name: String
    var room: Room?
    weak var weakRoom: Room?

    init(name: String) {
        self.name = name
    }
}

/// Hands a room back through three calls that are never inlined: the retain is made in the innermost and
/// returned +1 to the caller that stores it.
enum Relay {
    @inline(never)
    static func forward(_ room: Room) -> Room { relay(room) }

    @inline(never)
    static func relay(_ room: Room) -> Room { pass(room) }

    @inline(never)
    static func pass(_ room: Room) -> Room { room }
}
