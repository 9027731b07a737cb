import Foundation
import LeakGraphRender
import LeakGraphReport
import Testing

// The CLI's side of the contract with the preload library, checked against a fake preload
// (Tests/Fixtures/FakePreload) so that it does not depend on the real hook: the environment the
// program gets, its arguments, standard input and exit status, and what the CLI does with each thing
// the preload can leave behind.

@Suite("leakgraph run ⇄ preload library contract", .timeLimit(.minutes(10)))
struct PreloadContractTests {
    /// Runs the Probe fixture under `leakgraph run` with the fake preload library.
    private func runProbe(
        _ arguments: [String] = [], mode: String?, options: [String] = [], writeFiles: Bool = true,
        environment: [String: String] = [:], standardInput: String? = nil
    ) async throws -> (program: String, run: LeakgraphRun) {
        let program = try await FixtureBuilds.shared.executable("Probe", .debug).path
        var variables = environment
        variables["LEAKGRAPH_PRELOAD_LIBRARY"] = try await FakePreload.shared.library().path
        variables["FAKE_MODE"] = mode
        let run = try await LeakgraphRun.run(
            program, arguments, options: options, writeFiles: writeFiles, environment: variables,
            standardInput: standardInput
        )
        return (program, run)
    }

    /// Reads a `NAME=value` file written by the fake preload.
    private func readDump(_ url: URL) throws -> [String: String] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    @Test("the program gets the preload variables")
    func environment() async throws {
        let library = try await FakePreload.shared.library().path
        let dump = try Scratch.directory("env").appendingPathComponent("env.txt")
        _ = try await runProbe(mode: "clean", environment: ["FAKE_ENV_DUMP": dump.path])
        let plain = try readDump(dump)
        #expect(plain["LD_PRELOAD"] == library)
        #expect(plain["LEAKGRAPH_ORIGINAL_LD_PRELOAD"] == "(unset)")
        #expect(plain["LEAKGRAPH_FRAMES"] == "16")
        let program = try await FixtureBuilds.shared.executable("Probe", .debug).path
        #expect(plain["LEAKGRAPH_PROGRAM"] == program)
        #expect(plain["LEAKGRAPH_RENDER"] == "text,pretty-json", "--json and --text: both are rendered in the program")
        let output = try #require(plain["LEAKGRAPH_OUTPUT"])
        #expect(output.hasPrefix("/") && output.hasSuffix("/report.json"), "\(output)")
        let outputDirectory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        #expect(URL(fileURLWithPath: outputDirectory).lastPathComponent.hasPrefix("leakgraph."))
        #expect(!FileManager.default.fileExists(atPath: outputDirectory), "the temporary directory must be removed")

        _ = try await runProbe(
            mode: "clean", options: ["--frames", "8"],
            environment: ["FAKE_ENV_DUMP": dump.path, "LD_PRELOAD": "libm.so.6"]
        )
        let prepended = try readDump(dump)
        #expect(prepended["LD_PRELOAD"] == library + ":libm.so.6")
        #expect(prepended["LEAKGRAPH_ORIGINAL_LD_PRELOAD"] == "libm.so.6")
        #expect(prepended["LEAKGRAPH_FRAMES"] == "8")
        #expect(prepended["LEAKGRAPH_OUTPUT"] != output, "each run gets a fresh directory")

        _ = try await runProbe(mode: "clean", writeFiles: false, environment: ["FAKE_ENV_DUMP": dump.path])
        #expect(try readDump(dump)["LEAKGRAPH_RENDER"] == "text", "without --json only the text is rendered")
        let graph = try Scratch.directory("env-graph").appendingPathComponent("g.dot")
        _ = try await runProbe(
            mode: "clean", options: ["--dot", graph.path], environment: ["FAKE_ENV_DUMP": dump.path, "LEAKGRAPH_RENDER": "text"]
        )
        #expect(try readDump(dump)["LEAKGRAPH_RENDER"] == "(unset)", "a graph needs the decoded report: nothing is rendered")
        #expect(try readDump(dump)["LEAKGRAPH_MONITOR_INTERVAL"] == "(unset)", "no monitor without --every")
    }

    @Test("--every, --report-dir and --check-signal become the monitor's variables")
    func monitorEnvironment() async throws {
        let dump = try Scratch.directory("env-monitor").appendingPathComponent("env.txt")
        _ = try await runProbe(
            mode: "clean", options: ["--every", "1.5s", "--report-dir", "reports", "--check-signal", "USR1"],
            environment: ["FAKE_ENV_DUMP": dump.path])
        let values = try readDump(dump)
        #expect(values["LEAKGRAPH_MONITOR_INTERVAL"] == "1500")
        #expect(values["LEAKGRAPH_MONITOR_SIGNAL"] == "\(SIGUSR1)")
        // SIGHUP, SIGINT, SIGQUIT, SIGUSR1 and SIGTERM held until the preload's handlers exist.
        let held: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGTERM]
        let mask = held.reduce(0) { (mask: Int, signal: Int32) in mask | 1 << Int(signal - 1) }
        #expect(values["LEAKGRAPH_HELD_SIGNALS"] == String(mask), "\(mask) is 16903")
        let folder = try #require(values["LEAKGRAPH_MONITOR_DIRECTORY"])
        #expect(folder.hasPrefix("/") && folder.hasSuffix("/reports"), "made absolute: \(folder)")
        _ = try await runProbe(
            mode: "clean", options: ["--every", "250ms", "--check-signal", "none"], environment: ["FAKE_ENV_DUMP": dump.path])
        let plain = try readDump(dump)
        #expect(plain["LEAKGRAPH_MONITOR_INTERVAL"] == "250" && plain["LEAKGRAPH_MONITOR_SIGNAL"] == "0")
        #expect(plain["LEAKGRAPH_MONITOR_DIRECTORY"] == "(unset)")
    }

    @Test("files rendered by the program for exactly this run are used: its JSON as it is, its text after the header")
    func renderedFilesUsed() async throws {
        let (program, run) = try await runProbe(mode: "rendered")
        #expect(!run.result.signaled && run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        let header = TextReport.header(
            program: LeakReport.Program(path: program, arguments: [], exitStatus: 0),
            summary: LeakReport.Summary(trackedObjects: 5, liveObjects: 4, leakedObjects: 1, leakedBytes: 32, rootCycles: 1)
        )
        #expect(run.text == header + "TEXT RENDERED BY THE PROGRAM\n")
        #expect(run.report?.program == LeakReport.Program(path: "", arguments: [], exitStatus: 0), "copied, not decoded")
        #expect(run.toolMessages.count == 1)
        #expect(run.toolMessages.first?.hasPrefix("leakgraph: 1 leaked object (32 bytes) in 1 root cycle; summary") == true)
    }

    @Test("a JSON report naming another exit status is not used: the report is decoded")
    func staleRenderedFiles() async throws {
        let (program, run) = try await runProbe(mode: "rendered", environment: ["FAKE_SYNOPSIS_STATUS": "9"])
        #expect(!run.result.signaled && run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        #expect(run.report?.program == LeakReport.Program(path: program, arguments: [], exitStatus: 0))
        #expect(run.text?.contains("TEXT RENDERED") == false)
        #expect(run.text?.contains("Node") == true)
    }

    @Test("the text alone needs no matching program: its header names what leakgraph run saw")
    func renderedTextWithOtherStatus() async throws {
        let text = try Scratch.directory("rendered-text").appendingPathComponent("summary.txt")
        let (program, run) = try await runProbe(
            mode: "rendered", options: ["--text", text.path], writeFiles: false,
            environment: ["FAKE_SYNOPSIS_STATUS": "9", "PROBE_EXIT_STATUS": "6"]
        )
        #expect(!run.result.signaled && run.result.status == 6, "the program's failure wins over the leak status: \(run.result.summary)")
        let summary = try String(contentsOf: text, encoding: .utf8)
        let name = URL(fileURLWithPath: program).lastPathComponent
        #expect(summary.hasPrefix("Process \(name): 1 leak for 32 total leaked bytes.\n"), "\(summary)")
        #expect(summary.contains("Command: \(program)   (exit status 6)\n"), "\(summary)")
        #expect(summary.hasSuffix("\nTEXT RENDERED BY THE PROGRAM\n"), "\(summary)")
    }

    @Test("arguments, standard input and output pass through unchanged")
    func argumentsAndStreams() async throws {
        let arguments = ["plain", "two words", "", "--json", "-x", "--", "ünïcödé"]
        let (program, run) = try await runProbe(
            arguments, mode: "clean", environment: ["PROBE_READ_STDIN": "1"], standardInput: "hello from stdin\n"
        )
        var expected = ["argument count \(arguments.count)"]
        expected += arguments.enumerated().map { "argument[\($0.offset)]=\($0.element)" }
        expected.append("stdin=hello from stdin")
        #expect(run.result.standardOutput == expected.joined(separator: "\n") + "\n")
        #expect(run.result.status == 0)
        #expect(run.report?.program == LeakReport.Program(path: program, arguments: arguments, exitStatus: 0))
    }

    @Test("with no leaks, the program's own exit status is kept and the report says it")
    func exitStatusPassesThrough() async throws {
        let (program, run) = try await runProbe(["x"], mode: "clean", environment: ["PROBE_EXIT_STATUS": "7"])
        #expect(!run.result.signaled && run.result.status == 7, "\(run.result.summary)")
        #expect(run.report?.program == LeakReport.Program(path: program, arguments: ["x"], exitStatus: 7))
        #expect(run.report?.summary.leakedObjects == 0)
        #expect(run.toolMessages.count == 1)
        #expect(run.toolMessages.first?.hasPrefix("leakgraph: no leaks found; summary written to /") == true)
        #expect(run.toolMessages.first?.hasSuffix("/report.txt; the program exited with status 7; exit status 7 (the program's status)") == true)
    }

    @Test("leaks of a failing program: its status wins; the JSON and text files, and a one-line note on standard error")
    func leaksFound() async throws {
        let (program, run) = try await runProbe(["a"], mode: "leak", environment: ["PROBE_EXIT_STATUS": "3"])
        #expect(!run.result.signaled && run.result.status == 3, "\(run.result.summary)")
        let report = try #require(run.report)
        #expect(report.program == LeakReport.Program(path: program, arguments: ["a"], exitStatus: 3))
        #expect(report.leaks.map(\.type) == ["Fixture.Node"])
        #expect(report.summary.rootCycles == 1)
        #expect(run.text?.contains("Node") == true)
        #expect(run.toolMessages.count == 1)
        #expect(run.toolMessages.first?.hasPrefix("leakgraph: 1 leaked object (32 bytes) in 1 root cycle") == true)
        #expect(
            run.toolMessages.first?.hasSuffix(
                "; the program exited with status 3; exit status 3 (the program's status wins over the leak status)") == true,
            "\(run.toolMessages)")
    }

    @Test("without --text the summary goes to standard error, and no file is written without --json")
    func summaryOnStandardError() async throws {
        let (_, run) = try await runProbe(mode: "leak", writeFiles: false)
        #expect(run.result.status == LeakgraphRun.leakStatus)
        #expect(run.result.standardError.contains("Node"), "\(run.result.summary)")
        #expect(run.report == nil && run.text == nil)
    }

    @Test("a refused hook: its sentence, exit status 2")
    func refusal() async throws {
        let (_, run) = try await runProbe(mode: "refuse")
        #expect(run.result.status == 2)
        #expect(run.toolMessages == ["leakgraph: the Swift runtime 9.9 is not supported by this LeakGraph"])
        #expect(run.report == nil && run.text == nil)
    }

    @Test("no report after a normal exit (_exit skips the check)")
    func noReport() async throws {
        let (_, run) = try await runProbe(mode: "clean", environment: ["PROBE_UNDERSCORE_EXIT": "1", "PROBE_EXIT_STATUS": "5"])
        #expect(run.result.status == 2)
        #expect(
            run.toolMessages == [
                "leakgraph: the program exited with status 5 but no leak report was written (it called _exit, or the leak check failed)"
            ]
        )
        #expect(run.report == nil && run.text == nil)
    }

    @Test("an unreadable report")
    func unreadableReport() async throws {
        let (_, run) = try await runProbe(mode: "garbage")
        #expect(run.result.status == 2)
        #expect(run.toolMessages.count == 1)
        #expect(run.toolMessages.first?.hasPrefix("leakgraph: cannot read the leak report the program wrote: ") == true, "\(run.result.summary)")
        #expect(run.report == nil && run.text == nil)
    }

    @Test("files the user named are left alone when there is no report")
    func userFilesUntouched() async throws {
        let program = try await FixtureBuilds.shared.executable("Probe", .debug).path
        let folder = try Scratch.directory("user-files")
        let json = folder.appendingPathComponent("report.json")
        let text = folder.appendingPathComponent("report.txt")
        try Data("previous json".utf8).write(to: json)
        try Data("previous text".utf8).write(to: text)
        let result = try await runProcess(
            try BuildProducts.leakgraph(), arguments: ["run", "--json", json.path, "--text", text.path, "--", program],
            environment: cleanEnvironment(adding: [
                "LEAKGRAPH_PRELOAD_LIBRARY": try await FakePreload.shared.library().path, "FAKE_MODE": "refuse",
            ])
        )
        #expect(result.status == 2)
        #expect(try String(contentsOf: json, encoding: .utf8) == "previous json")
        #expect(try String(contentsOf: text, encoding: .utf8) == "previous text")
    }

    @Test("the program gets SIGINT's default action")
    func interruptsGoToTheProgram() async throws {
        let (_, run) = try await runProbe(mode: "clean", environment: ["PROBE_SIGINT_STATE": "1"])
        #expect(!run.result.signaled && run.result.status == 0, "\(run.result.summary)")
        #expect(run.result.standardOutput.contains("sigint=default"), "the program must get SIGINT's default action")
        #expect(run.report != nil)
    }
}
