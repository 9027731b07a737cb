import Foundation
import Testing

/// The optimization level a fixture is compiled at.
enum Optimization: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case debug
    case release

    /// The `swiftc` flag.
    var flag: String { self == .debug ? "-Onone" : "-O" }

    var testDescription: String { "\(rawValue) (\(flag))" }
}

/// Compiles the fixture programs under `Tests/Fixtures/<Name>/main.swift` (with the folder's other `.swift`
/// files) with `swiftc -g`, each at most
/// once per test process, when a test first needs it.
///
/// The module name is always `Fixture`, so leaked types read `Fixture.Node`.
actor FixtureBuilds {
    static let shared = FixtureBuilds()

    /// A failed compile.
    struct CompileError: Error, CustomStringConvertible {
        let description: String
    }

    private struct Key: Hashable {
        var name: String
        var flags: [String]
    }

    private var builds: [Key: Task<URL, any Error>] = [:]

    /// `Tests/Fixtures`, found from this file's path.
    static let fixturesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// The executable of fixture `name` at `optimization`, compiling it on first use.
    func executable(_ name: String, _ optimization: Optimization, extraFlags: [String] = []) async throws -> URL {
        let key = Key(name: name, flags: [optimization.flag] + extraFlags)
        if let build = builds[key] {
            return try await build.value
        }
        let build = Task { try await Self.compile(name, flags: key.flags) }
        builds[key] = build
        return try await build.value
    }

    private static func compile(_ name: String, flags: [String]) async throws -> URL {
        let source = fixturesDirectory.appendingPathComponent(name).appendingPathComponent("main.swift")
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CompileError(description: "no fixture source at \(source.path)")
        }
        let label = ([name] + flags).joined().replacingOccurrences(of: "-", with: "_")
        let output = try Scratch.directory("build").appendingPathComponent(label)
        // Fixtures that call `parseMode` share their plumbing (mode, watch, finish) in one file.
        let usesPlumbing = (try? String(contentsOf: source, encoding: .utf8))?.contains("parseMode(") ?? false
        let plumbing = fixturesDirectory.appendingPathComponent("Support/FixturePlumbing.swift")
        // A fixture may spread its types over several files of its folder (main.swift first).
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: source.deletingLastPathComponent().path)) ?? [])
            .filter { $0.hasSuffix(".swift") && $0 != "main.swift" }.sorted()
            .map { source.deletingLastPathComponent().appendingPathComponent($0).path }
        let sources = [source.path] + others + (usesPlumbing ? [plumbing.path] : [])
        let arguments = ["swiftc", "-g"] + flags + ["-module-name", "Fixture"] + sources + ["-o", output.path]
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, environment: cleanEnvironment()
        )
        guard result.status == 0, !result.signaled else {
            throw CompileError(description: "\(arguments.joined(separator: " ")) failed: \(result.summary)")
        }
        return output
    }
}
