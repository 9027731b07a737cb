import Foundation
import LeakGraphReport
import Testing

// `leakgraph run`'s arguments: each range and conflict has its own message naming the flag and what
// it accepts; a script is followed into the Swift programs it starts; `swift run` and `swift test`
// are answered with what to run instead.

@Suite("leakgraph run arguments", .timeLimit(.minutes(10)))
struct ArgumentTests {
    /// Runs the built `leakgraph` with `arguments`.
    private func leakgraph(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcess(try BuildProducts.leakgraph(), arguments: arguments, environment: cleanEnvironment())
    }

    @Test(
        "each range and conflict names the flag and the values it takes",
        arguments: [
            (["--frames", "-1"], "--frames must be between 0 and 64, not -1"),
            (["--frames", "65"], "--frames must be between 0 and 64, not 65"),
            (["--leak-exit-code", "-1"], "--leak-exit-code must be an exit status from 0 to 255, not -1"),
            (["--leak-exit-code", "256"], "--leak-exit-code must be an exit status from 0 to 255, not 256"),
            (["--every", "0"], "--every takes a duration from 1ms to 24h such as 500ms, 10s or 2m, not '0'"),
            (["--every", "1s", "--check-signal", "KILL"], "--check-signal takes USR1, USR2, HUP, WINCH, a signal number or none, not 'KILL'"),
            (["--check-signal", "USR1"], "--check-signal needs --every: it asks the checks made while the program runs for one now"),
            (["--report-dir", "/tmp"], "--report-dir needs --every: it is where the checks made while the program runs write"),
        ])
    func rangesAndConflicts(_ options: [String], _ message: String) async throws {
        let result = try await leakgraph(["run"] + options + ["--", "/bin/true"])
        #expect(!result.signaled && result.status == 2, "\(result.summary)")
        #expect(result.standardError.hasPrefix("Error: \(message)\n"), "\(result.summary)")
    }

    @Test("a shell script that starts a leaking Swift program: the program is followed and its leak reported")
    func scriptIsFollowed() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
        let folder = try Scratch.directory("script")
        let script = folder.appendingPathComponent("check.sh")
        try Data("#!/bin/sh\necho script starts\n'\(program)' clean exit 0\n'\(program)' exit 0\necho script ends\n".utf8)
            .write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

        let run = try await LeakgraphRun.run(script.path, [])
        #expect(!run.result.signaled && run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        #expect(run.result.standardOutput == "script starts\nscript ends\n")
        let report = try #require(run.report, "\(run.result.summary)")
        #expect(report.program.path == script.path && report.program.exitStatus == 0)
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
        #expect(report.cycles.count == 1)
        let name = URL(fileURLWithPath: program).lastPathComponent
        #expect(report.cycles.first?.run?.hasPrefix("\(name) (pid ") == true, "\(report.cycles)")
        let checked = run.toolMessages.filter { $0.hasPrefix("leakgraph: checked \(program) (pid ") }
        #expect(checked.count == 2, "both Swift processes were checked, the shell was not: \(run.toolMessages)")
        #expect(run.text?.contains("Found in the \(name) (pid ") == true)
    }

    @Test("a script that starts no Swift program says what to run instead")
    func scriptWithoutSwift() async throws {
        _ = try BuildProducts.preloadLibrary()
        let script = try Scratch.directory("script-plain").appendingPathComponent("plain.sh")
        try Data("#!/bin/sh\nexit 0\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let run = try await LeakgraphRun.run(script.path, [])
        #expect(!run.result.signaled && run.result.status == 2, "\(run.result.summary)")
        #expect(
            run.toolMessages == [
                "leakgraph: the script \(script.path) exited with status 0, and no Swift program it started wrote a leak "
                    + "report (it started none, or they ended with _exit or a signal); to check one program, run it "
                    + "directly: leakgraph run -- PROGRAM [ARGUMENTS…]"
            ])
    }

    @Test("`swift run` and `swift test` are answered with what to run instead")
    func swiftPM() async throws {
        let run = try await leakgraph(["run", "--", "swift", "run", "-c", "release", "App", "--port", "80"])
        #expect(!run.signaled && run.status == 2, "\(run.summary)")
        #expect(
            run.standardError
                == "leakgraph: `swift run` builds the product and runs it inside SwiftPM, so LeakGraph would check "
                + "SwiftPM, not App; build it, then run the executable: swift build -c release --product App && "
                + "leakgraph run -- \"$(swift build -c release --show-bin-path)/App\" --port 80\n")
        let test = try await leakgraph(["run", "swift", "test"])
        #expect(!test.signaled && test.status == 2, "\(test.summary)")
        #expect(test.standardError.hasPrefix("leakgraph: `swift test` runs the tests inside SwiftPM") && test.standardError.contains("leakgraph test"))
    }
}
