import Foundation
import LeakGraphRender
import LeakGraphReport
import Testing

// A program that runs its own LeakMonitor (Tests/Fixtures/OwnMonitor: no `leakgraph run`, nothing to
// send its creation stacks to) has them symbolized in the forked child of each check's walk: the
// program makes no Symbolizer (it prints how many it made) and reads no debug information. Its periodic
// report must be the same as when it symbolizes them itself (`program`: a Symbolizer in the process, as
// before): the same frames, creation sites, suspects, fingerprints and text. The trap: a program that
// leaks nothing reports nothing, and has nothing to symbolize either way.

@Suite("A program's own LeakMonitor: creation stacks symbolized in the forked child", .timeLimit(.minutes(10)))
struct ChildSymbolizationTests {
    private struct Run {
        var lines: [String]
        var report: LeakReport?

        /// The number after `label` on the line that has it.
        func count(after label: String) -> Int? {
            for line in lines {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: Substring(label)), index + 1 < words.count {
                    return Int(words[index + 1])
                }
            }
            return nil
        }
    }

    private func run(_ program: URL, symbolizedIn place: String, _ leak: String) async throws -> Run {
        let folder = try Scratch.directory("own-monitor")
        defer { try? FileManager.default.removeItem(at: folder) }
        let reports = folder.appendingPathComponent("reports")
        let result = try await runProcess(
            program, arguments: [place, leak, reports.path, "3"], environment: cleanEnvironment())
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: reports.path)) ?? []
        let report = try names.filter { $0.hasPrefix("leakgraph-") && $0.hasSuffix(".json") }.sorted().first.map {
            try LeakReport.decode(from: try Data(contentsOf: reports.appendingPathComponent($0)))
        }
        return Run(lines: result.standardOutput.split(separator: "\n").map(String.init), report: report)
    }

    /// What must be the same wherever the stacks were symbolized: each leaked object's type and
    /// creation frames, each cycle's suspect and fingerprint (the addresses differ from run to run).
    private func symbolized(_ report: LeakReport) -> [String] {
        report.leaks.map { leak in
            "\(leak.type): "
                + leak.backtrace.map { "\($0.function) \($0.file ?? "-"):\($0.line ?? 0)" }.joined(separator: " | ")
        }.sorted()
            + report.cycles.map { "\($0.fingerprint ?? "-") \(String(describing: $0.suspect))" }.sorted()
    }

    /// The text report's body (the header names the run's arguments) with the addresses taken out.
    private func text(_ report: LeakReport) -> String {
        TextReport.body(report).replacingOccurrences(of: "0x[0-9a-f]+", with: "0x…", options: .regularExpression)
    }

    @Test("a leak: the child symbolizes its stacks, the program makes no Symbolizer; the same frames, suspects, fingerprints and text as symbolized in the program", arguments: Optimization.allCases)
    func leakSymbolizedInChild(mode: Optimization) async throws {
        let program = try await InProcessBuilds.shared.executable("OwnMonitor", mode, harness: false)
        let child = try await run(program, symbolizedIn: "child", "leak")
        let here = try await run(program, symbolizedIn: "program", "leak")
        #expect(
            child.lines.contains { $0.hasPrefix("checks ") && $0.contains(" walk child") && !$0.contains("frozen") },
            "every walk in a child: \(child.lines)")
        #expect(child.count(after: "symbolizers") == 0, "the program made no Symbolizer: \(child.lines)")
        #expect((child.count(after: "symbolizedInChild") ?? 0) >= 1, "\(child.lines)")
        // The first check's child symbolized them; the later ones found them in their copy of the cache.
        let perCheck = child.lines.first { $0.hasPrefix("checks ") }?.split(separator: " ").last ?? ""
        #expect(perCheck.split(separator: ",").dropFirst().allSatisfy { $0 == "0" }, "\(child.lines)")
        #expect(perCheck.split(separator: ",").first.flatMap { Int($0) } == child.count(after: "symbolizedInChild"))
        #expect((here.count(after: "symbolizers") ?? 0) >= 1, "the program symbolized: \(here.lines)")
        #expect(here.count(after: "symbolizedInChild") == 0, "\(here.lines)")
        let report = try #require(child.report, "no periodic report: \(child.lines)")
        let reference = try #require(here.report, "no periodic report: \(here.lines)")
        #expect(report.program.running == true)
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])
        #expect(
            report.leaks.allSatisfy { $0.backtrace.contains { $0.function.contains("makePair") && $0.line != nil } },
            "every creation stack names makePair with a line: \(report.leaks.map(\.backtrace))")
        #expect(!report.diagnostics.contains { $0.typeName == "(creation stacks)" })
        #expect(symbolized(report) == symbolized(reference))
        #expect(text(report) == text(reference))
    }

    @Test("a program that leaks nothing: nothing reported, nothing symbolized anywhere", arguments: Optimization.allCases)
    func cleanTrap(mode: Optimization) async throws {
        let program = try await InProcessBuilds.shared.executable("OwnMonitor", mode, harness: false)
        for place in ["child", "program"] {
            let run = try await run(program, symbolizedIn: place, "clean")
            #expect(run.report == nil, "\(place): \(run.report.map(symbolized) ?? [])")
            #expect((run.count(after: "checks") ?? 0) >= 3, "\(run.lines)")
            #expect(run.count(after: "symbolizers") == 0, "\(run.lines)")
            #expect(run.count(after: "symbolizedInChild") == 0, "\(run.lines)")
        }
    }
}
