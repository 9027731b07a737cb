// Issue 27: cycles closed far from where their objects are made, each in a mode, so that
// `leakgraph run --history TYPE…` must name the line that stored the suspect reference. The types live
// in other files; every store line the report must name carries a `// store: MODE` comment, which the
// test (StoreSiteFixtureTests) reads to know the line.
//
// backReference: Room.admit (Room.swift) sets the member's back reference `room` — a method of another type.
// delegate:      wire(_:) (Wiring.swift) assigns a Downloader's delegate: a wiring function.
// closureSetter: Panel.configure hands a closure capturing self to Button.setOnTap, which stores it.
// otherThread:   the cycle Session.client ⇄ Client.session is closed on a Dispatch worker thread.
// passedUp:      the retain is made three calls deep (Relay.forward → …) and returned +1 to the store.
// ambiguous:     two clients are made with the hub as their `owner` (a `let` set in the initializer: no
//                write is recorded), and one is dropped: its deinit releases the hub, and which of the two
//                retains the leaked client's `owner` holds cannot be told, so the store site is "not known".
// fixed:         every shape above with its back reference weak or cleared: nothing leaks.

import Dispatch
import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case backReference, delegate, closureSetter, otherThread, passedUp, ambiguous, fixed }

let mode = parseMode(Mode.self)
let fixed = mode == .fixed

@inline(never)
func backReference() {
    let room = Room(name: "lobby")
    let member = Member(name: "ada")
    room.admit(member, weakly: fixed)
    watch(room)
    watch(member)
}

@inline(never)
func delegate() {
    let screen = Screen()
    wire(screen, weakly: fixed)
    watch(screen)
    watch(screen.downloader)
}

@inline(never)
func closureSetter() {
    let panel = Panel()
    panel.configure(weakly: fixed)
    watch(panel)
    watch(panel.button)
}

@inline(never)
func otherThread() {
    let session = Session()
    let client = Client()
    session.client = client  // store: otherThread Session.client
    let done = DispatchSemaphore(value: 0)
    weak var closureAlive: Token?
    do {
        let token = Token()
        closureAlive = token
        DispatchQueue.global().async { [token] in
            if !fixed {
                client.session = session  // store: otherThread Client.session
            }
            _ = token
            done.signal()
        }
    }
    done.wait()
    // The worker releases the closure (and what it captures) after it ran: wait for that, so that the check
    // at exit does not see the objects held by a block still being torn down.
    while closureAlive != nil { usleep(1000) }
    watch(session)
    watch(client)
}

@inline(never)
func passedUp() {
    let room = Room(name: "hall")
    let member = Member(name: "grace")
    room.members.append(member)
    if !fixed {
        member.room = Relay.forward(room)  // store: passedUp Member.room
    }
    watch(room)
    watch(member)
}

@inline(never)
func ambiguous() {
    let hub = Hub()
    let client = attach(hub)
    hub.client = client  // store: ambiguous Hub.client
    var spare: HubClient? = reserve(hub)
    watch(spare!)
    spare = nil
    if fixed {
        hub.client = nil
    }
    watch(hub)
    watch(client)
}

final class Token {}

switch mode {
case .backReference: backReference()
case .delegate: delegate()
case .closureSetter: closureSetter()
case .otherThread: otherThread()
case .passedUp: passedUp()
case .ambiguous: ambiguous()
case .fixed:
    backReference()
    delegate()
    closureSetter()
    otherThread()
    passedUp()
    ambiguous()
}
finish(expectingAlive: fixed ? 0 : 2)
