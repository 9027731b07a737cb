import Foundation
import LeakGraphReport
import Testing

// Under `leakgraph run` the program's checks send their creation stacks' return addresses to the
// `leakgraph` process, which symbolizes them (LEAKGRAPH_SYMBOLIZER): the program reads no debug
// information. The reports must be the same as when the program symbolizes them itself
// (`LEAKGRAPH_SYMBOLIZER=`, empty): the same frames, creation sites, suspects and text, at exit and in
// the monitor's periodic reports. The trap: a program that leaks nothing reports nothing either way.

@Suite("Creation stacks symbolized in the leakgraph process", .timeLimit(.minutes(10)))
struct SymbolizationInLeakgraphTests {
    /// In the program: the check symbolizes its stacks itself.
    private static let inProgram = ["LEAKGRAPH_SYMBOLIZER": ""]

    private func program(_ mode: Optimization) async throws -> String {
        _ = try BuildProducts.preloadLibrary()
        return try await FixtureBuilds.shared.executable("LeakAndEnd", mode).path
    }

    /// What must be the same whichever process symbolized: each leaked object's type and creation
    /// frames, each cycle's suspect and fingerprint (the object addresses differ from run to run).
    private func symbolized(_ report: LeakReport) -> [String] {
        report.leaks.map { leak in
            "\(leak.type): " + leak.backtrace.map { "\($0.function) \($0.file ?? "-"):\($0.line ?? 0)" }.joined(separator: " | ")
        }.sorted()
            + report.cycles.map { "\($0.fingerprint ?? "-") \(String(describing: $0.suspect))" }.sorted()
    }

    /// The text report with the run's addresses taken out.
    private func withoutAddresses(_ text: String?) -> String {
        (text ?? "").replacingOccurrences(of: "0x[0-9a-f]+", with: "0x…", options: .regularExpression)
    }

    @Test("the check at exit: symbolized in leakgraph (--verbose says so), the same frames, suspects and text as in the program", arguments: Optimization.allCases)
    func exitCheck(mode: Optimization) async throws {
        let program = try await program(mode)
        let there = try await LeakgraphRun.run(program, ["exit", "0"], options: ["--verbose"])
        let here = try await LeakgraphRun.run(program, ["exit", "0"], options: ["--verbose"], environment: Self.inProgram)
        for run in [there, here] {
            #expect(!run.result.signaled && run.result.status == LeakgraphRun.leakStatus, "\(run.result.summary)")
        }
        let thereLine = try #require(there.toolMessages.first { $0.hasPrefix("leakgraph: check of ") }, "\(there.result.summary)")
        let hereLine = try #require(here.toolMessages.first { $0.hasPrefix("leakgraph: check of ") }, "\(here.result.summary)")
        #expect(thereLine.contains(" s (in leakgraph)"), "\(thereLine)")
        #expect(!hereLine.contains("(in leakgraph)"), "\(hereLine)")
        let report = try #require(there.report)
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
        #expect(report.leaks.allSatisfy { $0.backtrace.contains { $0.function.contains("makePair") && $0.line != nil } },
            "every creation stack names makePair with a line: \(report.leaks.map(\.backtrace))")
        #expect(symbolized(report) == symbolized(try #require(here.report)))
        #expect(withoutAddresses(there.text) == withoutAddresses(here.text))
        #expect(!report.diagnostics.contains { $0.typeName == "(creation stacks)" })
    }

    @Test("a program that leaks nothing: nothing reported, symbolized in leakgraph or not", arguments: Optimization.allCases)
    func cleanTrap(mode: Optimization) async throws {
        let program = try await program(mode)
        for environment in [[:], Self.inProgram] {
            let run = try await LeakgraphRun.run(program, ["clean", "exit", "0"], environment: environment)
            #expect(!run.result.signaled && run.result.status == 0, "\(run.result.summary)")
            #expect(run.report?.leaks.isEmpty == true)
        }
    }

    /// Runs `leakgraph run --every 150ms --report-dir D -- LeakAndEnd wait` until the folder has a
    /// report, ends it with SIGTERM, and returns the periodic report.
    private func periodicReport(_ program: String, environment: [String: String]) async throws -> LeakReport {
        let folder = try Scratch.directory("symbolized-periodic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reports = folder.appendingPathComponent("reports")
        let process = Process()
        process.executableURL = try BuildProducts.leakgraph()
        process.arguments = ["run", "--every", "150ms", "--report-dir", reports.path, "--", program, "wait"]
        process.environment = cleanEnvironment(adding: environment)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try withDefaultSignalMask { try process.run() }
        var found: URL?
        for _ in 0..<600 where found == nil {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: reports.path)) ?? []
            found = names.filter { $0.hasPrefix("leakgraph-") && $0.hasSuffix(".json") }.sorted().first.map {
                reports.appendingPathComponent($0)
            }
            if found == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        return try LeakReport.decode(from: try Data(contentsOf: try #require(found, "no periodic report")))
    }

    @Test("the monitor's periodic report: the same frames and suspects symbolized in leakgraph as in the program", arguments: Optimization.allCases)
    func periodicCheck(mode: Optimization) async throws {
        let program = try await program(mode)
        let there = try await periodicReport(program, environment: [:])
        let here = try await periodicReport(program, environment: Self.inProgram)
        #expect(there.program.running == true)
        #expect(Set(there.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
        #expect(there.leaks.allSatisfy { $0.backtrace.contains { $0.function.contains("makePair") } })
        #expect(symbolized(there) == symbolized(here))
    }
}
