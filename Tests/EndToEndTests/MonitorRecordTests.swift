import Foundation
import LeakGraphReport
import Testing

// `checks.jsonl` under `leakgraph run --every`: one record per check, with the pause, the live and
// leaked objects and bytes, and per leak fingerprint its instances, so an ongoing leak shows its
// rate; a known leak found again unchanged is not walked for again (one freeze); the final report
// still lists every leak. The trap: the same churn with each pair broken before it is dropped
// records checks with nothing leaked.

@Suite("leakgraph run --every: checks.jsonl", .timeLimit(.minutes(10)))
struct MonitorRecordTests {
    /// One line of `checks.jsonl`, as docs/monitoring.md describes it.
    struct Record: Decodable {
        struct Leak: Decodable {
            var fingerprint: String
            var type: String
            var cycles: Int
            var objects: Int
            var bytes: Int
            var firstSeen: String?
        }
        var check: Int
        var time: String
        var skipped: String?
        var pauseSeconds: Double
        var pausesSeconds: [Double]
        var durationSeconds: Double
        var liveObjects: Int
        var liveBytes: Int
        var leakedObjects: Int
        var leakedBytes: Int
        var rootCycles: Int
        var newRootCycles: Int
        var unconfirmedCycles: Int
        var knownLeaksOnly: Bool
        var confirmation: String
        var walk: String?
        var childWalkFailure: String?
        var residentBytesBefore: Int
        var peakResidentBytes: Int
        var walkPeakResidentBytes: Int
        var leaks: [Leak]
    }

    /// Runs `leakgraph run --json J --every EVERY --report-dir D -- LeakAndEnd ARGUMENTS`, waits for
    /// `count` records, ends it with SIGTERM and returns the records, the final report and the folder.
    private func run(
        _ arguments: [String], every: String, records count: Int, mode: Optimization = .debug
    ) async throws -> (records: [Record], final: LeakReport, folder: URL) {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", mode).path
        let folder = try Scratch.directory("checks-jsonl")
        let reports = folder.appendingPathComponent("reports")
        let process = Process()
        process.executableURL = try BuildProducts.leakgraph()
        process.arguments = [
            "run", "--json", folder.appendingPathComponent("final.json").path, "--every", every, "--report-dir", reports.path,
            "--", program,
        ] + arguments
        process.environment = cleanEnvironment()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try withDefaultSignalMask { try process.run() }
        let checks = reports.appendingPathComponent("checks.jsonl")
        for _ in 0..<1200 {
            if let text = try? String(contentsOf: checks, encoding: .utf8), text.split(separator: "\n").count >= count { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let text = try String(contentsOf: checks, encoding: .utf8)
        let records = try text.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
        let final = try LeakReport.decode(from: try Data(contentsOf: folder.appendingPathComponent("final.json")))
        return (records, final, reports)
    }

    @Test("a pair leaked every 20 ms: a record per check, its count growing, every pair in the final report", arguments: Optimization.allCases)
    func growingLeak(mode: Optimization) async throws {
        let (records, final, folder) = try await run(["churn", "20"], every: "150ms", records: 5, mode: mode)
        #expect(records.count >= 5)
        #expect(records.map(\.check) == Array(1...records.count), "one record per check, in order")
        for record in records {
            #expect(record.skipped == nil)
            #expect(record.pauseSeconds > 0 && record.pauseSeconds == record.pausesSeconds.max())
            #expect(record.durationSeconds >= record.pauseSeconds)
            #expect(record.liveObjects >= record.leakedObjects && record.liveBytes > 0)
            #expect(record.peakResidentBytes >= record.residentBytesBefore && record.residentBytesBefore > 0)
            #expect(record.peakResidentBytes >= record.walkPeakResidentBytes && record.walkPeakResidentBytes > 0)
            #expect(record.leaks.count <= 1, "one leak, one fingerprint: \(record.leaks.map(\.type))")
            #expect(record.pausesSeconds.count == (record.confirmation == "reread" ? 2 : 1), "check \(record.check)")
            #expect(record.walk == "child" && record.childWalkFailure == nil, "walked in a forked child: \(record.childWalkFailure ?? "")")
            if let leak = record.leaks.first {
                #expect(leak.type == "Fixture.Owner" || leak.type == "Fixture.Partner")
                #expect(leak.objects == 2 * leak.cycles && record.leakedObjects == leak.objects)
                #expect(record.rootCycles == leak.cycles && record.leakedBytes == leak.bytes)
            }
        }
        let counts = records.map { $0.leaks.first?.cycles ?? 0 }
        #expect(counts == counts.sorted(), "a leak's count never falls: \(counts)")
        let last = try #require(counts.last)
        #expect(last > counts[0] && last >= 5, "the count grows: \(counts)")
        #expect(final.program.signal == "SIGTERM")
        #expect(final.cycles.count >= last, "every pair in the final report: \(final.cycles.count) of at least \(last)")
        #expect(Set(final.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
        let reportNames = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        let periodic = try LeakReport.decode(from: try Data(contentsOf: folder.appendingPathComponent(try #require(reportNames.sorted().first))))
        #expect(periodic.program.running == true, "a periodic report says the program was running")

        // `leakgraph report FOLDER` draws the same records: the leak's count now and its growth.
        let leakgraph = try BuildProducts.leakgraph()
        let drawn = try await runProcess(leakgraph, arguments: ["report", folder.path], environment: cleanEnvironment())
        #expect(drawn.status == 0, "\(drawn.standardError)")
        let lines = drawn.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix(folder.path + "/checks.jsonl: \(records.count) checks") == true, "\(lines.first ?? "")")
        let newest = try #require(records.last?.leaks.first)
        let leakLine = try #require(lines.first { $0.contains(newest.fingerprint) }, "\(drawn.standardOutput)")
        #expect(leakLine.contains("now \(newest.cycles) cycles, \(newest.objects) objects"), "\(leakLine)")
        #expect(leakLine.contains("cycles a minute") && leakLine.contains("+"), "a growing leak has a rate: \(leakLine)")
        #expect(lines.contains { $0.hasPrefix("leaked objects") && $0.hasSuffix("█") })
        #expect(lines.contains { $0.hasPrefix("Newest report: ") && $0.hasSuffix(".json") })
        let page = folder.deletingLastPathComponent().appendingPathComponent("checks.html")
        let html = try await runProcess(
            leakgraph, arguments: ["report", folder.path, "--html", page.path], environment: cleanEnvironment())
        #expect(html.status == 0 && html.standardOutput.isEmpty, "\(html.standardError)")
        let text = try String(contentsOf: page, encoding: .utf8)
        #expect(text.contains("<svg") && text.contains(newest.fingerprint))
        let graph = try await runProcess(
            leakgraph, arguments: ["report", folder.path, "--svg", page.path + ".svg"], environment: cleanEnvironment())
        #expect(graph.status == 2 && graph.standardError.contains("--svg renders one report"), "\(graph.standardError)")
    }

    @Test("a leak known from the first check: later checks freeze once, the record still counts it")
    func knownLeakFreezesOnce() async throws {
        let (records, final, _) = try await run(["wait"], every: "100ms", records: 4)
        let first = try #require(records.first)
        #expect(first.pausesSeconds.count == 2 && !first.knownLeaksOnly, "the first check confirms the candidate")
        #expect(first.confirmation == "reread", "by reading its objects again alone")
        #expect(first.newRootCycles == 1)
        for record in records.dropFirst() {
            #expect(record.pausesSeconds.count == 1 && record.knownLeaksOnly && record.confirmation == "known", "check \(record.check): no second read")
            #expect(record.newRootCycles == 0 && record.leaks.map(\.cycles) == [1] && record.leakedObjects == 2)
        }
        #expect(Set(final.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
    }

    @Test("the trap: pairs broken before they are dropped, records with nothing leaked, one freeze each", arguments: Optimization.allCases)
    func cleanChurn(mode: Optimization) async throws {
        let (records, final, folder) = try await run(["clean", "churn", "20"], every: "150ms", records: 4, mode: mode)
        #expect(records.count >= 4)
        for record in records {
            #expect(record.leakedObjects == 0 && record.leaks.isEmpty && record.rootCycles == 0, "check \(record.check)")
            #expect(record.pausesSeconds.count == 1 && record.confirmation == "none")
            #expect(record.walk == "child", "walked in a forked child: \(record.childWalkFailure ?? "")")
        }
        #expect(final.leaks.isEmpty)
        let reports = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(reports.isEmpty, "no leak report")

        // `leakgraph report FOLDER`: the checks drawn, no leak.
        let drawn = try await runProcess(
            try BuildProducts.leakgraph(), arguments: ["report", folder.path], environment: cleanEnvironment())
        #expect(drawn.status == 0, "\(drawn.standardError)")
        #expect(drawn.standardOutput.contains("No leak confirmed by any check."), "\(drawn.standardOutput)")
        #expect(!drawn.standardOutput.contains("Newest report"))
    }
}
