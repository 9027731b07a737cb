import Foundation
import LeakGraphReport
import Testing

// Samples/SessionServer, a request loop over a session cache whose /export route leaks, built as the
// standalone package it is and run under `leakgraph run --every`.

@Suite("Samples/SessionServer under leakgraph run --every", .timeLimit(.minutes(10)))
struct SessionServerSampleTests {
    /// The member types of every root cycle the sample leaks (what each holds varies: a job holds
    /// its session when the cache has dropped it).
    static let exportCycle: Set<[String]> = [["SessionServer.ExportJob"]]

    /// The member types of each root cycle of `report`.
    func memberTypes(_ report: LeakReport) -> Set<[String]> {
        Set(report.cycles.map { cycle in cycle.members.map { report.leaks[$0].type }.sorted() })
    }

    @Test("the leak is reported once while the program runs: on standard error, in the report folder; on the check signal; with SIGTERM")
    func monitored() async throws {
        let package = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Samples/SessionServer")
        let scratch = try Scratch.directory("session-server")
        let build = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["swift", "build", "--package-path", package.path, "--scratch-path", scratch.path],
            environment: cleanEnvironment())
        removeBuildLocks(of: scratch)
        try #require(build.status == 0, "the sample does not build: \(build.summary)")
        let program = scratch.appendingPathComponent("debug/SessionServer").path

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

        for folder in [scratch, periodicFolder, signalFolder, terminatedFolder] {
            try? FileManager.default.removeItem(at: folder)
        }
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
