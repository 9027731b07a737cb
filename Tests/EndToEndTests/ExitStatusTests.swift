import Foundation
import LeakGraphReport
import Testing

// `leakgraph run`'s exit statuses (docs/exit-status.md): a failing program keeps its status, leaks of
// a program that succeeded give 23 (or `--leak-exit-code`), and the last line and the JSON report
// state the program's status and the leak verdict apart.

@Suite("leakgraph run exit statuses", .timeLimit(.minutes(10)))
struct ExitStatusTests {
    /// The `LeakAndEnd` fixture, built once.
    private func program() async throws -> String {
        _ = try BuildProducts.preloadLibrary()
        return try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
    }

    @Test("a failing program that leaks nothing and a passing program that leaks end with different statuses")
    func failingVersusLeaking() async throws {
        let program = try await program()
        async let failingRun = LeakgraphRun.run(program, ["clean", "exit", "1"])
        async let leakingRun = LeakgraphRun.run(program, ["exit", "0"])
        let (failing, leaking) = try await (failingRun, leakingRun)

        #expect(!failing.result.signaled && failing.result.status == 1, "\(failing.result.summary)")
        #expect(!leaking.result.signaled && leaking.result.status == 23, "\(leaking.result.summary)")
        #expect(failing.report?.program.exitStatus == 1 && failing.report?.verdict == .noLeaks)
        #expect(leaking.report?.program.exitStatus == 0 && leaking.report?.verdict == .leaksFound)
        #expect(failing.toolMessages.last?.hasSuffix("; the program exited with status 1; exit status 1 (the program's status)") == true)
        #expect(failing.toolMessages.last?.hasPrefix("leakgraph: no leaks found; summary written to ") == true)
        #expect(
            leaking.toolMessages.last?.hasSuffix("; the program exited with status 0; exit status 23 (leaks found)") == true,
            "\(leaking.toolMessages)")
        #expect(leaking.toolMessages.last?.hasPrefix("leakgraph: 2 leaked objects (") == true)
        let json = try #require(leaking.jsonText)
        #expect(json.contains("\"verdict\" : \"leaksFound\""))
    }

    @Test("a program that fails and leaks keeps its own status; the last line names both")
    func failingAndLeaking() async throws {
        let run = try await LeakgraphRun.run(try await program(), ["exit", "5"])
        #expect(!run.result.signaled && run.result.status == 5, "\(run.result.summary)")
        #expect(run.report?.verdict == .leaksFound && run.report?.program.exitStatus == 5)
        #expect(
            run.toolMessages.last?.hasSuffix(
                "; the program exited with status 5; exit status 5 (the program's status wins over the leak status)") == true,
            "\(run.toolMessages)")
    }

    @Test("--leak-exit-code sets the status for leaks", arguments: [1, 0, 99])
    func leakExitCode(_ code: Int) async throws {
        let run = try await LeakgraphRun.run(try await program(), ["exit", "0"], options: ["--leak-exit-code", "\(code)"])
        #expect(!run.result.signaled && run.result.status == Int32(code), "\(run.result.summary)")
        #expect(run.report?.verdict == .leaksFound)
    }

    @Test("--leak-exit-code out of range names the flag and the allowed values", arguments: ["-1", "256", "many"])
    func leakExitCodeOutOfRange(_ value: String) async throws {
        let result = try await runProcess(
            try BuildProducts.leakgraph(), arguments: ["run", "--leak-exit-code", value, "--", "/bin/true"],
            environment: cleanEnvironment())
        #expect(!result.signaled && result.status == 2, "\(result.summary)")
        #expect(result.standardError.contains("--leak-exit-code"), "\(result.summary)")
        #expect(result.standardError.contains("0 to 255") || result.standardError.contains("'\(value)'"), "\(result.summary)")
    }
}
