// Fixture plumbing, compiled together with every fixture's main.swift that calls `parseMode`
// (Tests/EndToEndTests/Support/FixtureBuilds.swift adds it to the swiftc command line).
//
// Each fixture builds its shape in an `@inline(never)` function that returns, so nothing of it is left on
// the stack, and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

import Glibc

/// The fixture's one argument as its `Mode` (`leak`, `fixed`, …); anything else prints the usage and
/// exits with 64.
func parseMode<Mode: RawRepresentable & CaseIterable>(_ type: Mode.Type) -> Mode where Mode.RawValue == String {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        let modes = Mode.allCases.map(\.rawValue).joined(separator: "|")
        print("usage: \(CommandLine.arguments[0]) \(modes)")
        exit(64)
    }
    return mode
}

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

/// Watches `object` through a weak reference when FIXTURE_CHECK is set.
@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

/// With FIXTURE_CHECK set: prints how many watched objects are alive and exits with 3 unless `expected`.
func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}
