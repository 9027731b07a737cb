import Foundation
import LeakGraphReport
import Testing

// `leakgraph run`'s usage and tool errors, run through the built binary: each is exactly one
// `leakgraph: …` line on standard error (or argument-parser's usage text) and exit status 2.

@Suite("leakgraph run errors", .timeLimit(.minutes(10)))
struct CommandLineErrorTests {
    /// Runs the built `leakgraph` with `arguments` as they are.
    private func leakgraph(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        try await runProcess(
            try BuildProducts.leakgraph(), arguments: arguments, environment: cleanEnvironment(adding: environment)
        )
    }

    /// Checks that the tool failed with 2 and said exactly `message` in one line.
    private func expectToolError(
        _ run: LeakgraphRun, _ message: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!run.result.signaled && run.result.status == 2, "\(run.result.summary)", sourceLocation: sourceLocation)
        #expect(run.toolMessages == ["leakgraph: \(message)"], "\(run.result.summary)", sourceLocation: sourceLocation)
        #expect(run.report == nil && run.text == nil, "no report file may be written", sourceLocation: sourceLocation)
    }

    @Test("a missing executable")
    func missingExecutable() async throws {
        let byPath = try await LeakgraphRun.run("/nonexistent/leakgraph-test-program", [])
        expectToolError(byPath, "cannot run /nonexistent/leakgraph-test-program: no such file")
        let byName = try await LeakgraphRun.run("leakgraph-no-such-program", [])
        expectToolError(byName, "no executable named leakgraph-no-such-program in PATH")
    }

    @Test("a file that is not executable, and a directory")
    func notExecutable() async throws {
        let folder = try Scratch.directory("not-executable")
        let file = folder.appendingPathComponent("data.txt")
        try Data("text".utf8).write(to: file)
        expectToolError(try await LeakgraphRun.run(file.path, []), "cannot run \(file.path): it is not executable")
        expectToolError(try await LeakgraphRun.run(folder.path, []), "cannot run \(folder.path): it is a directory")
    }

    @Test("an executable program found in PATH is resolved like a shell does")
    func searchesPath() async throws {
        // `true` is found in PATH (not a Swift program, so the check stops there, naming the resolved path).
        let run = try await LeakgraphRun.run("true", [])
        #expect(run.result.status == 2)
        #expect(run.toolMessages.count == 1)
        #expect(run.toolMessages.first?.hasSuffix("/true is not a Swift program (it does not use libswiftCore.so)") == true, "\(run.result.summary)")
    }

    @Test("a program that is not Swift")
    func notSwift() async throws {
        expectToolError(
            try await LeakgraphRun.run("/bin/true", []), "/bin/true is not a Swift program (it does not use libswiftCore.so)"
        )
    }

    @Test("a file that is neither ELF nor a script")
    func notELF() async throws {
        let file = try Scratch.directory("data").appendingPathComponent("data.bin")
        try Data("plain text\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
        expectToolError(try await LeakgraphRun.run(file.path, []), "\(file.path) is not an ELF file")
    }

    @Test("a Swift program linked with -static-stdlib")
    func staticallyLinkedRuntime() async throws {
        let program = try await FixtureBuilds.shared.executable("Probe", .debug, extraFlags: ["-static-stdlib"]).path
        expectToolError(
            try await LeakgraphRun.run(program, []),
            "\(program) links the Swift runtime statically; LeakGraph needs the shared libswiftCore.so, "
                + "so build it without -static-stdlib / --static-swift-stdlib / -static-executable"
        )
    }

    @Test("a program that crashes before the leak check: a report marked crashed", arguments: Optimization.allCases)
    func crash(_ optimization: Optimization) async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("Crash", optimization).path
        // fatalError stops the program with ud2, which is SIGILL on x86_64; leakgraph ends the same way.
        let run = try await LeakgraphRun.run(program, ["leak"], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(run.result.signaled && run.result.status == SIGILL, "\(run.result.summary)")
        #expect(run.toolMessages == ["leakgraph: the program crashed with SIGILL; no leak check ran; summary written to \(run.textPath); leakgraph ends with SIGILL too"], "\(run.result.summary)")
        let report = try #require(run.report)
        #expect(report.verdict == .notChecked && report.leaks.isEmpty)
        #expect(report.crash?.signal == "SIGILL" && report.program.exitStatus == 128 + Int(SIGILL))
        #expect(report.crash?.frames.contains { $0.function.hasPrefix("Fixture.crash(") } == true, "\(report.crash?.frames ?? [])")
        #expect(run.text?.hasPrefix("Process ") == true && run.text?.contains("crashed with SIGILL; no leak check ran.") == true)
    }

    @Test("a missing preload library")
    func missingPreloadLibrary() async throws {
        let program = try await FixtureBuilds.shared.executable("Probe", .debug).path
        let run = try await LeakgraphRun.run(
            program, [], environment: ["LEAKGRAPH_PRELOAD_LIBRARY": "/nonexistent/libLeakGraphPreload.so"]
        )
        expectToolError(
            run,
            "the preload library /nonexistent/libLeakGraphPreload.so (from LEAKGRAPH_PRELOAD_LIBRARY) does not exist or cannot be read"
        )
        #expect(!run.result.standardOutput.contains("argument count"), "the program must not run")
    }

    @Test("a report path in a directory that does not exist fails before the program runs")
    func missingOutputDirectory() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("Probe", .debug).path
        let result = try await leakgraph(["run", "--json", "/nonexistent-dir/report.json", "--", program])
        #expect(result.status == 2)
        #expect(
            result.standardError
                == "leakgraph: cannot write the JSON report to /nonexistent-dir/report.json: the directory /nonexistent-dir does not exist\n"
        )
        #expect(!result.standardOutput.contains("argument count"), "the program must not run")
    }

    @Test(
        "usage errors exit with 2",
        arguments: [
            ["run", "--bogus", "--", "/bin/true"], ["run"], ["run", "--frames", "65", "--", "/bin/true"], ["run", "--frames", "-1", "--", "/bin/true"],
            ["run", "--frames", "many", "--", "/bin/true"], ["run", "--json"], ["frobnicate"],
        ]
    )
    func usageErrors(_ arguments: [String]) async throws {
        let result = try await leakgraph(arguments)
        #expect(!result.signaled && result.status == 2, "\(result.summary)")
        #expect(result.standardError.contains("Usage: leakgraph"), "\(result.summary)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test("help exits with 0 and documents the exit statuses")
    func help() async throws {
        let result = try await leakgraph(["run", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("leakgraph run [--json <path>] [--text <path>] [--dot <path>] [--svg <path>] [--html <path>] [--junit <path>] [--sarif <path>] [--expand] [--frames <n>] [--live-histogram] [--allocations] [--why <type>…] [--history <type>… | --history auto] [--leak-exit-code <n>] [--baseline <file>] [--write-baseline <file>] [--snapshot <file>] [--every <duration> [--report-dir <dir>] [--snapshot-dir <dir>] [--check-signal <signal>]] [--verbose] -- <executable>"))
        #expect(result.standardOutput.contains("Exit status: the program's own status when it is not 0"))
    }
}
