// Single-payload enums stored in a class (one case with a payload beside empty ones).
// - Client.state: ConnectionState = .connected(Connection, retries: 2) — the payload is a tuple, the
//   empty cases live in the payload's spare bits / extra inhabitants; Connection.client → Client.
// - Lamp.power: Power = .on(Switch) — the payload is one class reference, so the whole enum is one pointer
//   word with the empty cases in its extra inhabitants; Switch.lamp → Lamp.
// leak: 4 leaked objects — 2 root cycles {Client, Connection} and {Lamp, Switch}.
// fixed: the back references are `weak`, and a global keeps both shapes alive (the walk must read the live
// payloads without inventing a leak) — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
    case .leak: connection.client = client  // store: leak Connection.client
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
    case .leak: powerSwitch.lamp = lamp  // store: leak Switch.lamp
    case .fixed:
        powerSwitch.weakLamp = lamp
        keptAlive.append(lamp)
    }
}

makeClient()
makeLamp()
finish(expectingAlive: 4)
