// Found running the swift-argument-parser 1.8.2 test suite (debug): `leakgraph run` crashed the program
// (SIGSEGV in lg_release_zombie / swift_isDeallocating during a nursery sweep) in its first test that
// parses a command. Pure Swift, no Foundation.
//
// Cause: a throwing initializer called through an existential metatype (`try type.init(...)` with
// `type: any Loadable.Type`, as ArgumentParser's CodingKeyValidator does with `try type.init(from:)`,
// and as any Codable code decoding through `any Decodable.Type` does) whose value is too large for the
// existential's three-word inline buffer. The compiler allocates the box for the result first
// (`__swift_allocate_boxed_opaque_existential_1` → `swift_allocBox` → `swift_allocObject`, so LeakGraph
// records the box and takes its unowned retain) and passes the box's buffer as the indirect result. When
// the initializer throws, the uninitialized box is freed by the compiler-emitted helper
// `__swift_deallocate_boxed_opaque_existential_1`, which calls `swift_slowDealloc` (→ `free`) directly —
// no release, no `swift_deallocObject`, so LeakGraph's unowned retain is ignored. The record keeps the
// dangling address; malloc reuses the memory; the next sweep reads it as a refcount word and crashes (or
// `swift_unownedRelease`s it and corrupts the heap). Debug and -O alike.
//
// leak: 1,000 failing initializations; then a Parser ⇄ Command cycle — 2 leaked objects, 1 root cycle,
//       and the program must exit normally.
// fixed: the same failing initializations; Command.parser is weak — nothing leaks, and no crash.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

struct ValidationFailure: Error {}

protocol Loadable {
    init(failing: Bool) throws
}

/// Four words: too large for an existential's inline buffer, so `any Loadable` boxes it.
struct Options: Loadable {
    var verbose = 1, count = 2, depth = 3, width = 4
    init(failing: Bool) throws {
        if failing { throw ValidationFailure() }
    }
}

/// The shape of ArgumentParser's CodingKeyValidator: initialize through the existential metatype, expect
/// the initializer to throw.
@inline(never)
func validate(_ type: any Loadable.Type) -> Bool {
    do {
        let value: any Loadable = try type.init(failing: true)
        return value is Options
    } catch {
        return false
    }
}

final class Command {
    var name = "tool"
    var parser: Parser?
    weak var weakParser: Parser?
}

final class Parser {
    var command: Command?
    var arguments: [String] = []
}

@inline(never)
func validateMany() -> Int {
    var failures = 0
    var names: [String] = []
    for index in 0..<1_000 {
        if !validate(Options.self) { failures += 1 }
        // Allocations after each freed box, so malloc reuses its memory.
        names.append("argument number \(index) with a long enough name")
    }
    return failures + names.count
}

@inline(never)
func makeCommand() {
    let command = Command()
    let parser = Parser()
    watch(command)
    watch(parser)
    parser.command = command  // store: leak Parser.command
    switch mode {
    case .leak: command.parser = parser
    case .fixed: command.weakParser = parser
    }
}

let validated = validateMany()
makeCommand()
_ = validateMany()
if checking { print("validated \(validated)") }
finish(expectingAlive: mode == .leak ? 2 : 0)
