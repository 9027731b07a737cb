import Foundation
import LeakGraphReport
import Testing

// Samples/SessionServer, a request loop over a session cache whose /export route leaks, built once per
// test process as the standalone package it is (it depends on LeakGraph by path and on swift-prometheus)
// and run under `leakgraph run --every`: from the outside, and serving its checks at /metrics.

@Suite("Samples/SessionServer under leakgraph run --every", .timeLimit(.minutes(10)))
struct SessionServerSampleTests {
    /// The member types of every root cycle the sample leaks (what each holds varies: a job holds
    /// its session when the cache has dropped it).
    static let exportCycle: Set<[String]> = [["SessionServer.ExportJob"]]

    /// The member types of each root cycle of `report`.
    func memberTypes(_ report: LeakReport) -> Set<[String]> {
        Set(report.cycles.map { cycle in cycle.members.map { report.leaks[$0].type }.sorted() })
    }

    /// The sample's executable, built (debug) once into this process's scratch directory for every
    /// test of the suite.
    static let program = Task<String, any Error> {
        let package = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Samples/SessionServer")
        let scratch = try Scratch.directory("session-server")
        defer { removeBuildLocks(of: scratch) }
        let arguments = ["swift", "build", "--package-path", package.path, "--scratch-path", scratch.path]
        let build = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, environment: cleanEnvironment())
        guard build.status == 0, !build.signaled else {
            throw FixtureBuilds.CompileError(description: "the sample does not build: \(build.summary)")
        }
        return scratch.appendingPathComponent("debug/SessionServer").path
    }

    @Test("the leak is reported once while the program runs: on standard error, in the report folder; on the check signal; with SIGTERM")
    func monitored() async throws {
        let program = try await Self.program.value

        // Periodic checks: one report in the folder, one log message, for the many ExportJob cycles
        // (one fingerprint); the check at exit reports them too.
        let periodicFolder = try Scratch.directory("session-server-reports")
        let periodic = try await LeakgraphRun.run(
            program, ["--seconds", "1.5"], options: ["--every", "200ms", "--report-dir", periodicFolder.path])
        #expect(periodic.result.status == LeakgraphRun.leakStatus, "\(periodic.result.summary)")
        let reports = try monitorReports(in: periodicFolder)
        #expect(reports.count == 1, "reported once: \(reports.count) reports — \(periodic.result.summary)")
        if let report = reports.first {
            expectConsistent(report)
            #expect(memberTypes(report) == Self.exportCycle)
            #expect(Set(report.cycles.compactMap(\.fingerprint)).count == 1)
        }
        let messages = periodic.result.standardError.components(separatedBy: "LeakGraph: new leak")
        #expect(messages.count == 2, "one log message: \(periodic.result.standardError)")
        #expect(periodic.result.standardError.contains("ExportJob.onComplete (closure) → ExportJob"))
        #expect(periodic.report.map(memberTypes) == Self.exportCycle)

        // The check signal: an interval of an hour, so only SIGUSR2 (sent by the program to itself
        // right after the first /export) can make the report. The export's session is dropped from the
        // cache between the check and its confirmation: the job's reference to it is no change.
        let signalFolder = try Scratch.directory("session-server-signal")
        let signalled = try await LeakgraphRun.run(
            program, ["--seconds", "1.2", "--signal-self", "--signal-at", "40"], options: ["--every", "1h", "--report-dir", signalFolder.path])
        #expect(signalled.result.status == LeakgraphRun.leakStatus, "\(signalled.result.summary)")
        #expect(try monitorReports(in: signalFolder).count == 1, "\(signalled.result.summary) \(signalled.result.standardError)")

        // SIGTERM ends the program after one final check, whose report is marked with the signal;
        // leakgraph ends with SIGTERM too; what the monitor found while it ran is in the folder.
        let terminatedFolder = try Scratch.directory("session-server-terminated")
        let terminated = try await LeakgraphRun.run(
            program, ["--seconds", "2.5", "--terminate"], options: ["--every", "200ms", "--report-dir", terminatedFolder.path])
        #expect(terminated.result.signaled && terminated.result.status == SIGTERM, "\(terminated.result.summary)")
        #expect(terminated.toolMessages.contains { $0.contains("SIGTERM") }, "\(terminated.result.summary)")
        #expect(terminated.report?.program.signal == "SIGTERM", "\(terminated.result.summary)")
        #expect(try monitorReports(in: terminatedFolder).count == 1, "\(terminated.result.summary)")

        for folder in [periodicFolder, signalFolder, terminatedFolder] {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("under --every the leak is in the report folder and in the Prometheus text the sample serves at /metrics")
    func prometheus() async throws {
        let program = try await Self.program.value
        let folder = try Scratch.directory("session-server-prometheus")
        defer { try? FileManager.default.removeItem(at: folder) }
        let portFile = folder.appendingPathComponent("port")
        let reportFolder = folder.appendingPathComponent("reports")
        // The sample serves requests for 8 s (room for slow scrapes on a busy machine); the preloaded
        // monitor checks every 200 ms into the folder, and each scrape of /metrics runs one check of
        // the sample's own LeakMonitor.
        async let running = LeakgraphRun.run(
            program, ["--seconds", "8", "--metrics-port", "0", "--port-file", portFile.path],
            options: ["--every", "200ms", "--report-dir", reportFolder.path])
        let port = try await waitForPort(in: portFile)
        // Some /export requests (every 40th, one request a millisecond) have leaked by now.
        try await Task.sleep(for: .milliseconds(500))
        let first = try httpGet(port: port, path: "/metrics")
        let second = try httpGet(port: port, path: "/metrics")
        let other = try httpGet(port: port, path: "/sessions")
        let run = try await running

        #expect(first.status == 200, "\(first)")
        #expect(first.body.contains("# TYPE leakgraph_leaked_objects gauge\n"), "\(first.body)")
        #expect(first.body.contains("# TYPE leakgraph_checks_total counter\n"), "\(first.body)")
        let metrics = prometheusSamples(first.body)
        #expect((metrics["leakgraph_leaked_objects"] ?? 0) > 0, "\(first.body)")
        #expect((metrics["leakgraph_leaked_bytes"] ?? 0) > 0, "\(first.body)")
        #expect((metrics["leakgraph_live_objects"] ?? 0) > 0, "\(first.body)")
        #expect((metrics["leakgraph_check_duration_seconds"] ?? 0) > 0, "\(first.body)")
        #expect(metrics["leakgraph_checks_total"] == 1, "one check per scrape: \(first.body)")
        #expect(metrics["leakgraph_checks_skipped_total"] == 0, "\(first.body)")
        // The leak grows while the program runs: the next scrape's check finds at least as many.
        let later = prometheusSamples(second.body)
        #expect(later["leakgraph_checks_total"] == 2, "\(second.body)")
        #expect((later["leakgraph_leaked_objects"] ?? 0) >= (metrics["leakgraph_leaked_objects"] ?? .infinity), "\(second.body)")
        #expect(other.status == 404)

        #expect(run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        #expect(run.result.standardOutput.contains("metrics at http://127.0.0.1:\(port)/metrics"), "\(run.result.summary)")
        let reports = try monitorReports(in: reportFolder)
        #expect(reports.count == 1, "reported once: \(reports.count) reports — \(run.result.summary)")
        if let report = reports.first {
            expectConsistent(report)
            #expect(memberTypes(report) == Self.exportCycle)
        }
    }

    /// The port the sample wrote to `file` once it listened (waits up to two minutes: the run may wait
    /// for a process slot).
    func waitForPort(in file: URL) async throws -> UInt16 {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(120)
        while clock.now < deadline {
            if let text = try? String(contentsOf: file, encoding: .utf8),
                let port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HTTPGetError(description: "no port in \(file.path) after two minutes")
    }

    /// The samples of a Prometheus text exposition without labels: metric name → value.
    func prometheusSamples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) {
                samples[String(parts[0])] = value
            }
        }
        return samples
    }

    @Test("--every and --check-signal take durations and signals; --report-dir needs --every")
    func usage() async throws {
        for options in [["--every", "soon"], ["--every", "0s"], ["--report-dir", "/tmp/x"], ["--every", "1s", "--check-signal", "KILL"]] {
            let run = try await LeakgraphRun.run("/bin/true", [], options: options, writeFiles: false)
            #expect(run.result.status == 2, "\(options): \(run.result.summary)")
        }
    }

    /// The monitor's JSON reports in `folder`, decoded.
    func monitorReports(in folder: URL) throws -> [LeakReport] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.filter { $0.hasPrefix("leakgraph-") && $0.hasSuffix(".json") }.sorted().map {
            try LeakReport.decode(from: Data(contentsOf: folder.appendingPathComponent($0)))
        }
    }
}
