import Foundation

/// Compiles the app samples under `Samples/<Name>/Sources/<Name>/` with `swiftc -g` in the Swift 6 language
/// mode, at most once per sample and optimization per test process — faster than `swift build` of each
/// package, and the same sources and module name, so leaked types read `FindMyBike.BikeRegistry` as in
/// the sample's own build.
actor SampleBuilds {
    static let shared = SampleBuilds()

    /// `Samples`, found from this file's path.
    static let samplesDirectory = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples", isDirectory: true)

    private var builds: [String: Task<URL, any Error>] = [:]

    /// The executable of sample `name` at `optimization`, compiling it on first use.
    func executable(_ name: String, _ optimization: Optimization) async throws -> URL {
        let key = "\(name)\(optimization.flag)"
        if let build = builds[key] {
            return try await build.value
        }
        let build = Task { try await Self.compile(name, optimization) }
        builds[key] = build
        return try await build.value
    }

    private static func compile(_ name: String, _ optimization: Optimization) async throws -> URL {
        let sourceDirectory = samplesDirectory.appendingPathComponent("\(name)/Sources/\(name)", isDirectory: true)
        let sources = try FileManager.default.contentsOfDirectory(atPath: sourceDirectory.path)
            .filter { $0.hasSuffix(".swift") }.sorted().map { sourceDirectory.appendingPathComponent($0).path }
        guard !sources.isEmpty else {
            throw FixtureBuilds.CompileError(description: "no sources in \(sourceDirectory.path)")
        }
        let output = try Scratch.directory("sample").appendingPathComponent("\(name)-\(optimization.rawValue)")
        let arguments = ["swiftc", "-g", optimization.flag, "-swift-version", "6", "-module-name", name]
            + sources + ["-o", output.path]
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, environment: cleanEnvironment()
        )
        guard result.status == 0, !result.signaled else {
            throw FixtureBuilds.CompileError(description: "\(arguments.joined(separator: " ")) failed: \(result.summary)")
        }
        return output
    }
}
