import Foundation
import LeakGraphReport

/// One `leakgraph run --json J --text T -- PROGRAM ARGUMENTS` and what it produced.
struct LeakgraphRun: Sendable {
    /// The tool's exit status and output (the program's own output included).
    var result: ProcessResult
    /// The decoded `--json` file, when one was written.
    var report: LeakReport?
    /// The `--text` file's contents, when one was written.
    var text: String?
    /// The `--json` file's text, when one was written.
    var jsonText: String?
    /// The path given to `--text` (removed after the run).
    var textPath = ""

    /// Runs `program` under the built `leakgraph`.
    ///
    /// - Parameters:
    ///   - options: Extra `leakgraph run` options before `--`.
    ///   - writeFiles: Pass `--json` and `--text` (to fresh files); otherwise neither is passed.
    ///   - environment: Variables added to the cleaned test environment.
    static func run(
        _ program: String, _ arguments: [String], options: [String] = [], writeFiles: Bool = true,
        environment: [String: String] = [:], standardInput: String? = nil
    ) async throws -> LeakgraphRun {
        let leakgraph = try BuildProducts.leakgraph()
        let folder = try Scratch.directory("run")
        let jsonURL = folder.appendingPathComponent("report.json")
        let textURL = folder.appendingPathComponent("report.txt")
        var toolArguments = ["run"] + options
        if writeFiles {
            toolArguments += ["--json", jsonURL.path, "--text", textURL.path]
        }
        toolArguments += ["--", program] + arguments
        let result = try await runProcess(
            leakgraph, arguments: toolArguments, environment: cleanEnvironment(adding: environment),
            standardInput: standardInput
        )
        var run = LeakgraphRun(result: result)
        if let data = FileManager.default.contents(atPath: jsonURL.path) {
            run.report = try LeakReport.decode(from: data)
            run.jsonText = String(decoding: data, as: UTF8.self)
        }
        run.text = try? String(contentsOf: textURL, encoding: .utf8)
        run.textPath = textURL.path
        try? FileManager.default.removeItem(at: folder)
        return run
    }

    /// The exit status of `leakgraph run` when leaks are found and the program succeeded (no `--leak-exit-code`).
    static let leakStatus: Int32 = 23

    /// The lines the tool itself wrote to standard error (`leakgraph: …`).
    var toolMessages: [String] {
        result.standardError.split(separator: "\n").map(String.init).filter { $0.hasPrefix("leakgraph: ") }
    }
}
