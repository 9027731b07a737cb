// Row 7 of LEAK-PATTERNS: single-payload enums stored in a class (one case with a payload beside empty ones).
// - Client.state: ConnectionState = .connected(Connection, retries: 2) — the payload is a tuple, the
//   empty cases live in the payload's spare bits / extra inhabitants; Connection.client → Client.
// - Lamp.power: Power = .on(Switch) — the payload is one class reference, so the whole enum is one pointer
//   word with the empty cases in its extra inhabitants; Switch.lamp → Lamp.
// leak: 4 leaked objects — 2 root cycles {Client, Connection} and {Lamp, Switch}.
// fixed: the back references are `weak`, and a global keeps both shapes alive (the walk must read the live
// payloads without inventing a leak) — nothing leaks.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live payload must not look leaked.
var keptAlive: [AnyObject] = []

final class Connection {
    var client: Client?
    weak var weakClient: Client?
}

enum ConnectionState {
    case idle
    case closed
    case connected(Connection, retries: Int)
}

final class Client {
    var state: ConnectionState = .idle
}

final class Switch {
    var lamp: Lamp?
    weak var weakLamp: Lamp?
}

enum Power {
    case off
    case standby
    case on(Switch)
}

final class Lamp {
    var power: Power = .off
}

@inline(never)
func makeClient() {
    let client = Client()
    let connection = Connection()
    watch(client)
    watch(connection)
    client.state = .connected(connection, retries: 2)
    switch mode {
    case .leak: connection.client = client
    case .fixed:
        connection.weakClient = client
        keptAlive.append(client)
    }
}

@inline(never)
func makeLamp() {
    let lamp = Lamp()
    let powerSwitch = Switch()
    watch(lamp)
    watch(powerSwitch)
    lamp.power = .on(powerSwitch)
    switch mode {
    case .leak: powerSwitch.lamp = lamp
    case .fixed:
        powerSwitch.weakLamp = lamp
        keptAlive.append(lamp)
    }
}

makeClient()
makeLamp()
finish(expectingAlive: 4)
