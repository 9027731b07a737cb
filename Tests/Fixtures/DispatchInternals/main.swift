// Cycles through Dispatch's and Foundation's own memory, which no Swift metadata
// describes — found by the holder scan, which follows the words of untracked malloc'd memory to the one
// object that owns it (docs/how-it-works.md, "Raw pointers").
//
// leak: 3 root cycles:
//   - a `Monitor` keeps a timer `DispatchSource` it never activates (it can never fire), whose event handler
//     captures the monitor: {Monitor, DispatchSource}, closed by the handler kept in libdispatch's source
//     (`__wrapped (malloc'd memory, raw pointer)`);
//   - a `Connection` stored as its own queue's specific value (`setSpecific`): {Connection, DispatchQueue,
//     _DispatchSpecificValue}, closed by the value libdispatch keeps in the queue's specifics list;
//   - an `Uploader` whose suspended `OperationQueue` keeps an operation capturing the uploader: the queue
//     keeps its operations in `Unmanaged` links (`__firstOperation (raw pointer)`), the operation its queue
//     (`__queue`).
// kept: the same three owners kept by a global: nothing leaks.
// released: the timer activated (libdispatch's timer heap then holds it: it will fire, so its monitor is
//   alive, not leaked), the specific value removed, the operation queue resumed and drained: nothing leaks.
//   (A custom source — `makeUserDataAddSource` — that is activated and then dropped is leaked, though: it
//   retains itself with a count, not a pointer, and nothing can trigger or cancel it any more.)

import Dispatch
import Foundation
import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, kept, released }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Monitor {
    var source: DispatchSourceTimer?
    var fired = 0

    func start() {
        let source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + 3600, repeating: 3600)
        source.setEventHandler { self.fired += 1 }
        self.source = source
    }
}

final class Connection {
    static let key = DispatchSpecificKey<Connection>()
    let queue = DispatchQueue(label: "fixture.connection")
    var bytes = 0

    func attach() { queue.setSpecific(key: Connection.key, value: self) }
    func detach() { queue.setSpecific(key: Connection.key, value: nil) }
}

final class Uploader {
    let queue = OperationQueue()
    var uploaded = 0

    func enqueue() {
        queue.isSuspended = true
        queue.addOperation { self.uploaded += 1 }
    }
}

nonisolated(unsafe) var kept: [AnyObject] = []

@inline(never)
func makeMonitor() {
    let monitor = Monitor()
    watch(monitor)
    monitor.start()
    switch mode {
    case .kept: kept.append(monitor)
    case .released: monitor.source?.activate()
    case .leak: break
    }
}

@inline(never)
func makeConnection() {
    let connection = Connection()
    watch(connection)
    connection.attach()
    switch mode {
    case .kept: kept.append(connection)
    case .released: connection.detach()
    case .leak: break
    }
}

@inline(never)
func makeUploader() {
    let uploader = Uploader()
    watch(uploader)
    uploader.enqueue()
    switch mode {
    case .kept: kept.append(uploader)
    case .released:
        uploader.queue.isSuspended = false
        uploader.queue.waitUntilAllOperationsAreFinished()
    case .leak: break
    }
}

makeMonitor()
makeConnection()
makeUploader()
usleep(50_000)
// An activated timer is kept by libdispatch until cancelled: its monitor stays alive.
finish(expectingAlive: [.leak: 3, .kept: 3, .released: 1][mode]!)
