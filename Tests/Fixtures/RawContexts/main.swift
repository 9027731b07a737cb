// Raw context pointers — `Unmanaged.passRetained(x).toOpaque()`, the C callback
// pattern — kept where no metadata says a reference is.
//
// leak: 2 root cycles, found by the holder scan:
//   - a Connection keeps its Owner's retained context pointer in a raw field (`context`) while the Owner
//     keeps the Connection: {Owner, Connection}, closed by `context (raw pointer)`;
//   - a Client registers a callback with a C-style API: a malloc'd `Registration` slot holding the
//     Client's retained context pointer, whose address only the Client keeps: {Client}, closed by
//     `malloc'd memory (raw pointer)`; it holds its Handler.
// liveField: the same Connection, also kept by a global: its raw field holds the Owner, which is alive
//   (the Client is closed properly).
// liveSlot: the same registration, its slot also kept by a global (`registry`): the Client is alive (the
//   Connection is closed properly).
// released: both closed properly (`close()` releases the retained pointers): nothing is left.
// Every mode but leak reports nothing.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, liveField, liveSlot, released }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Connection {
    /// The owner's retained context pointer, handed back to C callbacks.
    var context: UnsafeMutableRawPointer?
    var bytesRead = 0

    func close() {
        if let context { Unmanaged<Owner>.fromOpaque(context).release() }
        context = nil
    }
}

final class Owner {
    var connection: Connection?
    var name = "owner"
}

/// What a C API keeps for a registered callback.
struct Registration {
    var context: UnsafeMutableRawPointer
    var callback: @convention(c) (UnsafeMutableRawPointer) -> Void
}

final class Handler {
    var calls = 0
}

final class Client {
    var registration: UnsafeMutablePointer<Registration>?
    let handler = Handler()

    func register() {
        let slot = UnsafeMutablePointer<Registration>.allocate(capacity: 1)
        slot.initialize(
            to: Registration(
                context: Unmanaged.passRetained(self).toOpaque(),
                callback: { Unmanaged<Client>.fromOpaque($0).takeUnretainedValue().handler.calls += 1 }))
        registration = slot
    }

    func close() {
        guard let slot = registration else { return }
        Unmanaged<Client>.fromOpaque(slot.pointee.context).release()
        slot.deinitialize(count: 1)
        slot.deallocate()
        registration = nil
    }
}

nonisolated(unsafe) var keptConnection: Connection?
nonisolated(unsafe) var registry: UnsafeMutablePointer<Registration>?

@inline(never)
func makeOwner() {
    let owner = Owner()
    let connection = Connection()
    watch(owner)
    watch(connection)
    connection.context = Unmanaged.passRetained(owner).toOpaque()
    owner.connection = connection
    switch mode {
    case .liveField: keptConnection = connection
    case .liveSlot, .released: connection.close()
    case .leak: break
    }
}

@inline(never)
func makeClient() {
    let client = Client()
    watch(client)
    watch(client.handler)
    client.register()
    switch mode {
    case .liveSlot: registry = client.registration
    case .liveField, .released: client.close()
    case .leak: break
    }
}

@inline(never)
func scrubStack() {
    // Overwrites the dead frames below main with zeros, so no stale copy of a pointer is left where the
    // exit-time check's frames do not reach.
    var scratch = [UInt64](repeating: 0, count: 1)
    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 8192) { buffer in
        buffer.initialize(repeating: 0)
        scratch[0] = buffer[8191]
    }
    _ = scratch
}

makeOwner()
makeClient()
scrubStack()
finish(expectingAlive: [.leak: 4, .liveField: 2, .liveSlot: 2, .released: 0][mode]!)
