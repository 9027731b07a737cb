import Foundation
import LeakGraphReport
import Testing

// `leakgraph run` without graph outputs uses the text summary's body and the `--json` file that the
// checked program rendered at exit (LEAKGRAPH_RENDER) instead of decoding the report; `leakgraph
// report` and the graph outputs decode it. These tests fail when the two renderings of one report
// diverge, and when the CLI uses a rendered report that names another program than the one it ran.

@Suite("leakgraph run: files rendered by the checked program", .timeLimit(.minutes(10)))
struct ChildRenderingTests {
    /// Runs the built `leakgraph` with `arguments`.
    private func leakgraph(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        try await runProcess(
            try BuildProducts.leakgraph(), arguments: arguments, environment: cleanEnvironment(adding: environment)
        )
    }

    /// `text` with every address (`0x…`) written `0xADDR`: two runs of one fixture differ only there.
    private func maskingAddresses(_ text: String) -> String {
        text.replacing(/0x[0-9a-f]+/, with: "0xADDR")
    }

    @Test(
        "the text and JSON the program rendered are what the CLI renders from the decoded report",
        arguments: [("ArrayChildren", Optimization.debug, "leak"), ("ArrayChildren", .release, "leak"),
            ("IndependentCycles", .debug, "leak"), ("ClosureCaptures", .release, "leak"), ("ArrayChildren", .debug, "fixed")]
    )
    func renderedMatchesDecoded(fixture: String, optimization: Optimization, mode: String) async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable(fixture, optimization).path
        let folder = try Scratch.directory("rendered-\(fixture)")
        let json = folder.appendingPathComponent("run.json")
        let text = folder.appendingPathComponent("run.txt")
        let run = try await leakgraph(["run", "--json", json.path, "--text", text.path, "--", program, mode])
        try #require(!run.signaled && run.status == (mode == "leak" ? LeakgraphRun.leakStatus : 0), "\(run.summary)")
        let runText = try String(contentsOf: text, encoding: .utf8)
        let runJSON = try Data(contentsOf: json)

        let rendered = try await leakgraph(["report", json.path])
        #expect(rendered.status == 0, "\(rendered.summary)")
        #expect(rendered.standardOutput == runText, "the text summary differs from the decoded report's")

        let again = folder.appendingPathComponent("again.json")
        let reencoded = try await leakgraph(["report", json.path, "--json", again.path])
        #expect(reencoded.status == 0, "\(reencoded.summary)")
        #expect(try Data(contentsOf: again) == runJSON, "the --json file differs from the decoded report's encoding")
    }

    @Test("the text on standard error is the one `leakgraph report` renders from the --json file")
    func terminalText() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("ArrayChildren", .debug).path
        let json = try Scratch.directory("rendered-terminal").appendingPathComponent("run.json")
        let run = try await leakgraph(["run", "--json", json.path, "--", program, "leak"])
        try #require(run.status == LeakgraphRun.leakStatus, "\(run.summary)")
        let rendered = try await leakgraph(["report", json.path])
        var lines = run.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.removeLast() == "" && lines.last?.hasPrefix("leakgraph: ") == true, "the final line: \(run.summary)")
        lines.removeLast()
        let summary = lines.joined(separator: "\n") + "\n"
        #expect(summary.hasSuffix(rendered.standardOutput), "\(run.summary)")
        #expect(!summary.contains("leakgraph: "), "\(run.summary)")
    }

    @Test("with a graph output the report is decoded; text and JSON are the same but for addresses")
    func graphsDecode() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("ArrayChildren", .debug).path
        let folder = try Scratch.directory("rendered-graphs")
        var texts: [String] = []
        var jsons: [String] = []
        for graphs in [[], ["--dot", folder.appendingPathComponent("g.dot").path]] {
            let json = folder.appendingPathComponent("run.json")
            let text = folder.appendingPathComponent("run.txt")
            let run = try await leakgraph(["run", "--json", json.path, "--text", text.path] + graphs + ["--", program, "leak"])
            try #require(run.status == LeakgraphRun.leakStatus, "\(run.summary)")
            texts.append(maskingAddresses(try String(contentsOf: text, encoding: .utf8)))
            jsons.append(maskingAddresses(try String(contentsOf: json, encoding: .utf8)))
        }
        #expect(texts[0] == texts[1])
        #expect(jsons[0] == jsons[1])
    }

    @Test("files that name other arguments than the CLI gave are not used: the report is decoded")
    func staleArguments() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("Probe", .debug).path
        let folder = try Scratch.directory("rendered-stale")
        let json = folder.appendingPathComponent("run.json")
        let text = folder.appendingPathComponent("run.txt")
        let run = try await leakgraph(
            ["run", "--json", json.path, "--text", text.path, "--", program, "original"],
            environment: ["PROBE_REWRITE_ARGUMENTS": "1", "PROBE_EXIT_STATUS": "4"]
        )
        #expect(!run.signaled && run.status == 4, "\(run.summary)")
        let report = try LeakReport.decode(from: try Data(contentsOf: json))
        #expect(report.program == LeakReport.Program(path: program, arguments: ["original"], exitStatus: 4))
        let summary = try String(contentsOf: text, encoding: .utf8)
        #expect(summary.contains("Command: \(program) original   (exit status 4)"), "\(summary)")
        let rendered = try await leakgraph(["report", json.path])
        #expect(rendered.standardOutput == summary)

        let textOnly = try await leakgraph(
            ["run", "--text", text.path, "--", program, "original"],
            environment: ["PROBE_REWRITE_ARGUMENTS": "1", "PROBE_EXIT_STATUS": "4"]
        )
        #expect(!textOnly.signaled && textOnly.status == 4, "\(textOnly.summary)")
        let header = try String(contentsOf: text, encoding: .utf8)
        #expect(header.contains("Command: \(program) original   (exit status 4)"), "the header names what leakgraph run saw")
    }
}
