import Foundation
import LeakGraphReport
import Testing

// Signals during `leakgraph run`: SIGTERM to leakgraph is forwarded to the program, whose preload
// library checks and writes the report marked with the signal before the program dies of it;
// leakgraph then ends the same way, and no process is left. The same when the program is signalled
// directly, and when leakgraph is killed outright (the program dies with it).

@Suite("leakgraph run and signals", .timeLimit(.minutes(10)))
struct SignalTests {
    /// A `leakgraph run` started in the background, with its program's pid once it printed `ready`.
    private struct Started {
        var process: Process
        var finished: AsyncStream<Void>
        var folder: URL
        var child: pid_t

        /// Waits for leakgraph to end; its result.
        func wait() async -> ProcessResult {
            for await _ in finished {}
            process.waitUntilExit()
            return ProcessResult(
                status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal,
                standardOutput: (try? String(contentsOf: folder.appendingPathComponent("stdout"), encoding: .utf8)) ?? "",
                standardError: (try? String(contentsOf: folder.appendingPathComponent("stderr"), encoding: .utf8)) ?? "")
        }
    }

    /// Starts `leakgraph run --json J -- LeakAndEnd ARGUMENTS` and waits until the program printed `ready`.
    private func start(_ arguments: [String]) async throws -> Started {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
        let folder = try Scratch.directory("signal")
        let output = folder.appendingPathComponent("stdout")
        let error = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: error.path, contents: nil)
        let process = Process()
        process.executableURL = try BuildProducts.leakgraph()
        process.arguments = ["run", "--json", folder.appendingPathComponent("report.json").path, "--", program] + arguments
        process.environment = cleanEnvironment()
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: error)
        process.standardInput = FileHandle.nullDevice
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.finish() }
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if let text = try? String(contentsOf: output, encoding: .utf8), text.contains("ready") { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let child = try #require(Self.children(of: process.processIdentifier).first, "the program did not start")
        return Started(process: process, finished: finished.stream, folder: folder, child: child)
    }

    /// The processes whose parent is `parent` (from /proc).
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && Int32(fields[1]) == parent
        }
    }

    /// Whether `pid` is gone (not even a zombie).
    private static func isGone(_ pid: pid_t) async throws -> Bool {
        for _ in 0..<100 {
            if kill(pid, 0) != 0 && errno == ESRCH { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Checks the report marked with SIGTERM and leakgraph ending with SIGTERM.
    private func expectMarkedReport(_ started: Started, _ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(result.signaled && result.status == SIGTERM, "leakgraph ends as the program did: \(result.summary)", sourceLocation: sourceLocation)
        let data = try Data(contentsOf: started.folder.appendingPathComponent("report.json"))
        let report = try LeakReport.decode(from: data)
        #expect(report.program.signal == "SIGTERM" && report.program.exitStatus == 128 + Int(SIGTERM), sourceLocation: sourceLocation)
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"], sourceLocation: sourceLocation)
        #expect(
            result.standardError.hasSuffix(
                "; the program was ended by SIGTERM after the check; leakgraph ends with SIGTERM too\n"),
            "\(result.summary)", sourceLocation: sourceLocation)
        #expect(result.standardError.contains("(ended by SIGTERM, checked first)"), sourceLocation: sourceLocation)
    }

    @Test("SIGTERM to leakgraph is forwarded: the report is written and marked, no process is left")
    func terminateLeakgraph() async throws {
        let started = try await start(["wait"])
        kill(started.process.processIdentifier, SIGTERM)
        let result = await started.wait()
        try expectMarkedReport(started, result)
        #expect(try await Self.isGone(started.child), "the program is not left behind")
    }

    @Test("SIGTERM to the program itself: the same report, and leakgraph ends the same way")
    func terminateProgram() async throws {
        let started = try await start(["wait"])
        kill(started.child, SIGTERM)
        let result = await started.wait()
        try expectMarkedReport(started, result)
    }

    @Test("a program that handles SIGTERM itself keeps it: its handler exits, the check at exit runs")
    func programHandlesSignal() async throws {
        let started = try await start(["handle-term"])
        kill(started.process.processIdentifier, SIGTERM)
        let result = await started.wait()
        #expect(!result.signaled && result.status == LeakgraphRun.leakStatus, "\(result.summary)")
        #expect(result.standardOutput.contains("handled SIGTERM"))
        let report = try LeakReport.decode(from: try Data(contentsOf: started.folder.appendingPathComponent("report.json")))
        #expect(report.program.signal == nil && report.program.exitStatus == 0)
    }

    @Test("leakgraph killed outright: the program dies with it (PR_SET_PDEATHSIG)")
    func killedLeakgraph() async throws {
        let started = try await start(["wait"])
        kill(started.process.processIdentifier, SIGKILL)
        let result = await started.wait()
        #expect(result.signaled && result.status == SIGKILL)
        #expect(try await Self.isGone(started.child), "the program is not left behind")
    }
}
