@testable import LeakGraphAnalysis
import LeakGraphModel
import Testing

/// Hand-built retain histories (the events `leakgraph run --history` records, with symbolized stacks) for
/// the balancer that cancels retain/release pairs (``RetainBalancer``) and the attribution of what is
/// left to the strong references into the object (``LeakAnalysis/storeSites(fieldOffsets:frames:)``).
///
/// The shape is the one of issue 27: a `Room` and a `Member` that hold each other (`Member.room`,
/// `Room.members[0]`), both leaked, each with a history. Stacks are innermost first.
@Suite struct RetainBalancerTests {
    /// A frame of the program's own code in main.swift.
    static func user(_ function: String, line: Int) -> HistoryFrame {
        HistoryFrame(function: function, file: "main.swift", line: line, isUserCode: true)
    }

    static let makeRoom = user("Fixture.Room.__allocating_init() -> Fixture.Room", line: 3)
    static let makeMember = user("Fixture.Member.__allocating_init() -> Fixture.Member", line: 7)
    static let build = "Fixture.build() -> ()"
    static let join = "Fixture.Member.join(Fixture.Room) -> ()"
    static let rejoin = "Fixture.Member.rejoin(Fixture.Room) -> ()"
    static let add = "Fixture.Room.add(Fixture.Member) -> ()"
    static let log = "Fixture.log(Fixture.Room) -> ()"

    /// The stacks the events below name, by id.
    static let stacks: [UInt32: [HistoryFrame]] = [
        1: [makeRoom, user(build, line: 10)],  // Room's allocation: its initializer returns it to build()
        2: [user(join, line: 14), user(build, line: 11)],  // join stores the room: `self.room = room`
        3: [user(log, line: 20), user(build, line: 12)],  // a call that retains and releases it again
        4: [user(log, line: 21), user(build, line: 12)],
        5: [user(build, line: 13)],  // build() lets go of its own reference at its end
        6: [makeMember, user(build, line: 10)],  // Member's allocation
        7: [user(add, line: 30), user(join, line: 15), user(build, line: 11)],  // `members.append(member)`
        8: [user(rejoin, line: 18), user(build, line: 12)],  // a second store of the room, elsewhere
        9: [
            user("Fixture.Member.room.setter : Fixture.Room?", line: 0), user(rejoin, line: 18),
            user(build, line: 12),
        ],  // the setter releases the value it overwrites: a field's release, whoever retained it
    ]

    static func frames(_ id: UInt32) -> [HistoryFrame] { stacks[id] ?? [] }

    static func event(_ kind: RetainEvent.Kind, stack: UInt32, at sequence: Int) -> RetainEvent {
        RetainEvent(kind: kind, stackID: stack, sequence: sequence)
    }

    /// Room's history when the log call's pair and build()'s own +1 are balanced: join's retain is left.
    static let roomHistory = RetainHistory(
        events: [
            event(.allocation, stack: 1, at: 1), event(.retain, stack: 2, at: 2), event(.retain, stack: 3, at: 4),
            event(.release, stack: 4, at: 5), event(.release, stack: 5, at: 7),
        ], complete: true)

    /// Member's history: its allocation's +1 is moved into the room's array (nothing releases it).
    static let memberHistory = RetainHistory(events: [event(.allocation, stack: 6, at: 3)], complete: true)

    /// Member (0) ⇄ Room (1), each retained once, with the given histories; returns the analysis and the
    /// indices of the references `room` (into Room) and `members[0]` (into Member).
    static func cycle(room: RetainHistory?, member: RetainHistory? = nil, roomRetains: Int = 1)
        -> (analysis: LeakAnalysis, intoRoom: Int, intoMember: Int)
    {
        var graph = ObjectGraph()
        let memberNode = graph.addNode(
            ObjectNode(address: 0x1000, typeName: "Fixture.Member", kind: .class, size: 32, retainCount: 1))
        let roomNode = graph.addNode(
            ObjectNode(address: 0x1040, typeName: "Fixture.Room", kind: .class, size: 32, retainCount: roomRetains))
        graph.addReference(from: memberNode, to: roomNode, path: [.property("room")], ownership: .strong)
        graph.addReference(from: roomNode, to: memberNode, path: [.property("members"), .element(0)], ownership: .strong)
        graph.retainHistories[roomNode] = room
        graph.retainHistories[memberNode] = member
        return (LeakAnalysis.analyze(graph), 0, 1)
    }

    /// The site's function and line, `"–"` when it has no frame.
    static func place(_ candidate: StoreSite.Candidate?) -> String {
        guard let frame = candidate?.frame else { return "–" }
        return "\(frame.function):\(frame.line.map(String.init) ?? "?")"
    }

    @Test("pairing by equal stacks (Mozilla's rule) cancels only a retain and release made on one path: build()'s release of its own +1 matches no stack, so two +1s are left for one reference")
    func equalStacksLeaveOwnershipReleasesUnmatched() {
        let balancer = RetainBalancer(typeName: "Fixture.Room", pairing: .equalStacks)
        let (plus, minus) = balancer.units(of: Self.roomHistory, frames: Self.frames)
        let outcome = balancer.balance(plus: plus, minus: minus)
        // log's pair names log() then build() both times: cancelled. build()'s release (stack [build]) has
        // no +1 with that stack: the allocation's and join's are both left.
        #expect(outcome.survivors.map(\.event.sequence) == [1, 2])
        let (analysis, intoRoom, _) = Self.cycle(room: Self.roomHistory)
        let site = analysis.storeSites(pairsByEqualStacks: true, frames: Self.frames)[intoRoom]
        #expect(site?.verdict == .notKnown)
        #expect(analysis.storeSites(frames: Self.frames)[intoRoom]?.verdict == .known)
    }

    @Test func balancedPairsAreCancelledAndTheUnbalancedRetainIsTheStoreSite() {
        let balancer = RetainBalancer(typeName: "Fixture.Room")
        let (plus, minus) = balancer.units(of: Self.roomHistory, frames: Self.frames)
        #expect(plus.count == 3)
        #expect(minus.count == 2)
        let outcome = balancer.balance(plus: plus, minus: minus)
        // log's release takes log's retain (same owner); build's release takes the allocation's +1, whose
        // owner is build() (the initializer hands it back); join's retain is left.
        #expect(outcome.survivors.map(\.event.sequence) == [2])
        #expect(outcome.alternatives.map(\.count) == [0])

        let (analysis, intoRoom, _) = Self.cycle(room: Self.roomHistory)
        #expect(analysis.leaked == [0, 1])
        let sites = analysis.storeSites(frames: Self.frames)
        let site = sites[intoRoom]
        #expect(site?.verdict == .known)
        #expect(Self.place(site?.site) == "\(Self.join):14")
        #expect(site?.site?.evidence == .retain)
        #expect(site?.site?.caller?.function == Self.build)
    }

    @Test func eachReferenceGetsTheRetainLeftInItsOwnTarget() {
        let (analysis, intoRoom, intoMember) = Self.cycle(room: Self.roomHistory, member: Self.memberHistory)
        let sites = analysis.storeSites(frames: Self.frames)
        #expect(sites.count == 2)
        #expect(Self.place(sites[intoRoom]?.site) == "\(Self.join):14")
        // Member's only +1 is its allocation, made in build() (the initializer returns it): the array holds
        // that +1, moved into it.
        #expect(sites[intoMember]?.verdict == .known)
        #expect(sites[intoMember]?.site?.evidence == .allocation)
        #expect(Self.place(sites[intoMember]?.site) == "\(Self.build):10")
    }

    @Test func aReleaseThatCouldHaveTakenEitherRetainGivesNotKnownWithBoth() {
        // join and rejoin both retain the room; rejoin's setter releases a stored value — a field's release,
        // which could have taken either. The one left is join's by the balancer's order, but rejoin's could
        // stand in its place: the answer is "not known", with both lines.
        let history = RetainHistory(
            events: [
                Self.event(.allocation, stack: 1, at: 1), Self.event(.retain, stack: 2, at: 2),
                Self.event(.retain, stack: 8, at: 4), Self.event(.release, stack: 9, at: 5),
                Self.event(.release, stack: 5, at: 7),
            ], complete: true)
        let balancer = RetainBalancer(typeName: "Fixture.Room")
        let (plus, minus) = balancer.units(of: history, frames: Self.frames)
        #expect(minus.map(\.isFieldRelease) == [true, false])
        let outcome = balancer.balance(plus: plus, minus: minus)
        #expect(outcome.survivors.map(\.event.sequence) == [2])
        #expect(outcome.alternatives.map { $0.map(\.event.sequence) } == [[4]])

        let (analysis, intoRoom, _) = Self.cycle(room: history)
        let site = analysis.storeSites(frames: Self.frames)[intoRoom]
        #expect(site?.verdict == .notKnown)
        #expect(site?.site == nil)
        #expect(site?.reason == "a release could have balanced either of 2 retains")
        #expect(site?.candidates.map(Self.place) == ["\(Self.join):14", "\(Self.rejoin):18"])
    }

    @Test func aHistoryThatDoesNotAddUpToTheRetainCountNamesNoLine() {
        // The same events, but the object says it is retained twice: a retain was made where the recorder
        // does not look, so no survivor can be trusted to be the reference's.
        let (analysis, intoRoom, _) = Self.cycle(room: Self.roomHistory, roomRetains: 2)
        let site = analysis.storeSites(frames: Self.frames)[intoRoom]
        #expect(site?.verdict == .notKnown)
        #expect(site?.reason?.contains("add up to 1, its retain count is 2") == true)
        #expect(site?.candidates.isEmpty == false)
    }

    @Test func aHistoryThatMissesTheAllocationNamesNoLine() {
        var history = Self.roomHistory
        history.complete = false
        let (analysis, intoRoom, _) = Self.cycle(room: history)
        let site = analysis.storeSites(frames: Self.frames)[intoRoom]
        #expect(site?.verdict == .notKnown)
        #expect(site?.reason?.hasPrefix("its history does not start at its allocation") == true)
    }

    @Test func moreRetainsLeftThanReferencesNamesNoLine() {
        // Without build()'s release, two +1s are left for one reference.
        var history = Self.roomHistory
        history.events.removeLast()
        let (analysis, intoRoom, _) = Self.cycle(room: history, roomRetains: 2)
        let site = analysis.storeSites(frames: Self.frames)[intoRoom]
        #expect(site?.verdict == .notKnown)
        #expect(site?.reason == "2 retains are left for 1 references")
        #expect(site?.candidates.map(Self.place) == ["\(Self.build):10", "\(Self.join):14"])
    }

    @Test func theOwnerOfARetainSkipsAccessorsAndFunctionsThatReturnTheObject() {
        let stack = [
            HistoryFrame(function: "swift_retain", isUserCode: false),
            Self.user("Fixture.Member.room.getter : Fixture.Room?", line: 0),
            Self.user("Fixture.Member.currentRoom() -> Fixture.Room", line: 40),
            Self.user("Fixture.Lobby.seat(Fixture.Member) -> ()", line: 52),
        ]
        #expect(RetainBalancer.owner(in: stack, typeName: "Fixture.Room") == 3)
        // For an object of another type, currentRoom() cannot hand it back: it owns the +1.
        #expect(RetainBalancer.owner(in: stack, typeName: "Fixture.Member") == 2)
        #expect(RetainBalancer.owner(in: Array(stack.prefix(3)), typeName: "Fixture.Room") == nil)
    }

    @Test func aReleaseMadeAsATailCallBalancesTheOwnersRetain() {
        // The retain's owner is helper(); its release was a tail call at helper's end, so its stack shows
        // the caller at the line that called helper.
        let plusStack = [Self.user("Fixture.helper(Fixture.Room) -> ()", line: 5), Self.user(Self.build, line: 40)]
        let tailRelease = [Self.user(Self.build, line: 40)]
        let elsewhere = [Self.user(Self.build, line: 41)]
        let retain = RetainBalancer.Unit(
            event: Self.event(.retain, stack: 1, at: 1), frames: plusStack, owner: 0, chain: plusStack.map(\.function))
        func release(_ frames: [HistoryFrame], at sequence: Int, thread: Int = 1) -> RetainBalancer.Unit {
            var event = Self.event(.release, stack: 2, at: sequence)
            event.thread = thread
            return RetainBalancer.Unit(event: event, frames: frames, owner: nil, chain: frames.map(\.function))
        }
        #expect(RetainBalancer.owns(retain, release(tailRelease, at: 2)))
        #expect(!RetainBalancer.owns(retain, release(elsewhere, at: 2)))
        // Not an earlier release, nor one of another thread.
        #expect(!RetainBalancer.owns(retain, release(tailRelease, at: 0)))
        #expect(!RetainBalancer.owns(retain, release(tailRelease, at: 2, thread: 2)))
    }
}
