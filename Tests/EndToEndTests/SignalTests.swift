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

    /// Starts `leakgraph run --json J OPTIONS -- LeakAndEnd ARGUMENTS` and waits until the program
    /// printed `ready`. With `ignoringInterrupt`, through `sh -c 'trap "" INT; exec …'`: leakgraph
    /// starts with SIGINT ignored, as a shell starts a background job.
    private func start(
        _ arguments: [String], options: [String] = [], ignoringInterrupt: Bool = false, mode: Optimization = .debug
    ) async throws -> Started {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", mode).path
        let folder = try Scratch.directory("signal")
        let output = folder.appendingPathComponent("stdout")
        let error = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: error.path, contents: nil)
        let process = Process()
        let leakgraph = try BuildProducts.leakgraph()
        let run = ["run", "--json", folder.appendingPathComponent("report.json").path] + options + ["--", program] + arguments
        if ignoringInterrupt {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' INT; exec \"$0\" \"$@\"", leakgraph.path] + run
        } else {
            process.executableURL = leakgraph
            process.arguments = run
        }
        process.environment = cleanEnvironment()
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: error)
        process.standardInput = FileHandle.nullDevice
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.finish() }
        try withDefaultSignalMask { try process.run() }
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

    /// The files whose name starts with `leakgraph-` and ends with `.json` in `folder`, after waiting
    /// (at most 60 s) until there are at least `count`.
    private static func reports(in folder: URL, atLeast count: Int) async throws -> [URL] {
        var found: [URL] = []
        for _ in 0..<1200 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            found = names.filter { $0.hasPrefix("leakgraph-") && $0.hasSuffix(".json") }.sorted()
                .map { folder.appendingPathComponent($0) }
            if found.count >= count { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return found
    }

    @Test("the check signal sent to leakgraph is forwarded: a check, the program runs on, nothing lost", arguments: Optimization.allCases)
    func checkSignalToLeakgraph(mode: Optimization) async throws {
        let reports = try Scratch.directory("check-signal-reports")
        let started = try await start(["wait"], options: ["--every", "1h", "--report-dir", reports.path], mode: mode)
        kill(started.process.processIdentifier, SIGUSR2)
        let found = try await Self.reports(in: reports, atLeast: 1)
        let report = try LeakReport.decode(from: try Data(contentsOf: try #require(found.first, "no check ran")))
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
        #expect(kill(started.child, 0) == 0, "the program runs on after the check")
        let records = try String(contentsOf: reports.appendingPathComponent("checks.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(records.count == 1, "one check: \(records)")
        kill(started.process.processIdentifier, SIGTERM)
        let result = await started.wait()
        try expectMarkedReport(started, result)
    }

    @Test("the check signal at once: held until the preload's handler exists, never the program's death")
    func checkSignalAtStart() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
        let folder = try Scratch.directory("check-signal-at-start")
        let process = Process()
        process.executableURL = try BuildProducts.leakgraph()
        process.arguments = [
            "run", "--json", folder.appendingPathComponent("report.json").path, "--every", "1h", "--report-dir",
            folder.path, "--", program, "wait",
        ]
        process.environment = cleanEnvironment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try withDefaultSignalMask { try process.run() }
        // Sent as soon as leakgraph has a child, before its preload library can have installed anything.
        var child: pid_t?
        for _ in 0..<20_000 where child == nil {
            child = Self.children(of: process.processIdentifier).first
        }
        kill(process.processIdentifier, SIGUSR2)
        let found = try await Self.reports(in: folder, atLeast: 1)
        #expect(found.count == 1, "the check signal asked for a check")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        let report = try LeakReport.decode(from: try Data(contentsOf: folder.appendingPathComponent("report.json")))
        #expect(report.program.signal == "SIGTERM")
    }

    @Test("a clean program: the check signal checks, reports nothing, and the program runs on")
    func checkSignalClean() async throws {
        let reports = try Scratch.directory("check-signal-clean")
        let started = try await start(["clean", "wait"], options: ["--every", "1h", "--report-dir", reports.path])
        kill(started.process.processIdentifier, SIGUSR2)
        try await Task.sleep(for: .seconds(2))
        #expect(try await Self.reports(in: reports, atLeast: 0).isEmpty)
        let records = try String(contentsOf: reports.appendingPathComponent("checks.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(records.count == 1 && records[0].contains("\"leakedObjects\":0"), "one check ran: \(records)")
        #expect(kill(started.child, 0) == 0, "the program runs on after the check")
        kill(started.process.processIdentifier, SIGTERM)
        let result = await started.wait()
        #expect(result.signaled && result.status == SIGTERM, "\(result.summary)")
        let report = try LeakReport.decode(from: try Data(contentsOf: started.folder.appendingPathComponent("report.json")))
        #expect(report.leaks.isEmpty && report.program.signal == "SIGTERM")
    }

    @Test("started with SIGINT ignored (a background job): kill -INT reaches the program's own handler, final report")
    func interruptIgnoredAtStart() async throws {
        let started = try await start(["handle-int"], ignoringInterrupt: true)
        kill(started.process.processIdentifier, SIGINT)
        let result = await started.wait()
        #expect(!result.signaled && result.status == LeakgraphRun.leakStatus, "\(result.summary)")
        #expect(result.standardOutput.contains("handled SIGINT"))
        let report = try LeakReport.decode(from: try Data(contentsOf: started.folder.appendingPathComponent("report.json")))
        #expect(report.program.signal == nil && report.program.exitStatus == 0)
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
    }

    @Test("started with SIGINT ignored, a clean program that handles it: exits 0, nothing reported")
    func interruptIgnoredAtStartClean() async throws {
        let started = try await start(["clean", "handle-int"], ignoringInterrupt: true)
        kill(started.process.processIdentifier, SIGINT)
        let result = await started.wait()
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        #expect(result.standardOutput.contains("handled SIGINT"))
        let report = try LeakReport.decode(from: try Data(contentsOf: started.folder.appendingPathComponent("report.json")))
        #expect(report.leaks.isEmpty)
    }

    @Test("started with SIGINT ignored, a program that does not handle it ignores kill -INT, as it would alone")
    func interruptIgnoredStaysIgnored() async throws {
        let started = try await start(["wait"], ignoringInterrupt: true)
        kill(started.process.processIdentifier, SIGINT)
        try await Task.sleep(for: .milliseconds(500))
        #expect(kill(started.child, 0) == 0, "the program ignores SIGINT, as it was started")
        kill(started.process.processIdentifier, SIGTERM)
        let result = await started.wait()
        try expectMarkedReport(started, result)
    }
}
