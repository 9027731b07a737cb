import Foundation
import LeakGraphReport

/// One `leakgraph test --package-path P --scratch-path S --json J [OPTIONS]` and what it produced.
struct LeakgraphTest: Sendable {
    /// The tool's exit status and output (the build's and the tests' own output included).
    var result: ProcessResult
    /// The decoded `--json` file, when one was written.
    var report: LeakReport?

    /// Runs `leakgraph test` on `package`, building into `scratch`.
    ///
    /// - Parameter environment: Variables added to the cleaned test environment (the tests read them).
    static func run(
        package: URL, scratch: URL, options: [String] = [], environment: [String: String] = [:]
    ) async throws -> LeakgraphTest {
        let folder = try Scratch.directory("test-command")
        let jsonURL = folder.appendingPathComponent("report.json")
        let arguments =
            ["test", "--package-path", package.path, "--scratch-path", scratch.path, "--json", jsonURL.path] + options
        let result = try await runProcess(
            try BuildProducts.leakgraph(), arguments: arguments, environment: cleanEnvironment(adding: environment))
        removeBuildLocks(of: scratch)
        var run = LeakgraphTest(result: result)
        if let data = FileManager.default.contents(atPath: jsonURL.path) {
            run.report = try LeakReport.decode(from: data)
        }
        try? FileManager.default.removeItem(at: folder)
        return run
    }

    /// The lines the tool itself wrote to standard error (`leakgraph: …`).
    var toolMessages: [String] {
        result.standardError.split(separator: "\n").map(String.init).filter { $0.hasPrefix("leakgraph: ") }
    }

    /// Each root cycle as `RUN: member types (sorted, class names or `(kind)`)`, with ` [library]` for a
    /// known library leak; sorted.
    var cyclesByRun: [String] {
        guard let report else { return [] }
        let leaks = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return report.cycles.map { cycle in
            let types = cycle.members.map { leaks[$0].map(typeKey) ?? "?" }.sorted().joined(separator: ", ")
            return "\(cycle.run ?? "?"): \(types)\(cycle.knownLibraryLeak == nil ? "" : " [library]")"
        }.sorted()
    }
}
