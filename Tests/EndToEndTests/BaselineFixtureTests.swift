import Foundation
import LeakGraphReport
import Testing

// Baselines end to end (issue 13), with the BaselineCycles fixture at -Onone and -O: a baseline written
// from one run accepts the same leak in the next and fails on a new one; a type pattern and a site pattern
// accept a cycle with what it holds; a damaged or newer baseline is one message and exit status 2.

@Suite("Baselines under leakgraph run", .timeLimit(.minutes(10)))
struct BaselineFixtureTests {
    /// A file in a fresh scratch folder holding `text`.
    private func baselineFile(_ text: String) throws -> URL {
        let url = try Scratch.directory("baseline").appendingPathComponent("leakgraph.baseline")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// The fixture's path at `optimization`.
    private func program(_ optimization: Optimization) async throws -> String {
        _ = try BuildProducts.preloadLibrary()
        return try await FixtureBuilds.shared.executable("BaselineCycles", optimization).path
    }

    /// The member types of a report's cycle, sorted.
    private func types(_ cycle: LeakReport.Cycle, in report: LeakReport) -> [String] {
        cycle.members.map { report.leaks[$0].type }.sorted()
    }

    @Test("a baseline written from a run accepts that leak next time and fails on a new one", arguments: Optimization.allCases)
    func writtenBaseline(_ optimization: Optimization) async throws {
        let program = try await program(optimization)
        let file = try Scratch.directory("baseline").appendingPathComponent("leakgraph.baseline")

        let writing = try await LeakgraphRun.run(program, ["old"], options: ["--write-baseline", file.path])
        #expect(!writing.result.signaled && writing.result.status == 0, "writing accepts this run's leaks: \(writing.result.summary)")
        #expect(writing.toolMessages.contains("leakgraph: wrote the baseline \(file.path): 1 fingerprint"), "\(writing.result.summary)")
        let written = try String(contentsOf: file, encoding: .utf8)
        let baseline = try Baseline.parse(written, source: file.path)
        let oldReport = try #require(writing.report)
        let oldFingerprint = try #require(oldReport.cycles.first?.fingerprint)
        #expect(baseline.entries.map(\.text) == ["fingerprint: \(oldFingerprint)"])
        #expect(baseline.entries.first?.reason?.contains("Presenter.delegate") == true, "\(written)")

        // The same leak again: accepted, still reported and marked, exit 0.
        let again = try await LeakgraphRun.run(program, ["old"], options: ["--baseline", file.path])
        #expect(!again.result.signaled && again.result.status == 0, "\(again.result.summary)")
        let report = try #require(again.report)
        #expect(report.summary.leakedObjects == 2 && report.cycles.count == 1)
        let suppressed = try #require(report.cycles.first?.suppressed)
        #expect(suppressed.entry == "fingerprint: \(oldFingerprint)" && suppressed.baseline == file.path && suppressed.line != nil)
        #expect(report.newLeakedObjects == 0)
        let text = try #require(again.text)
        #expect(text.contains("\n0 new leaks, 1 suppressed by the baseline (root cycles).\n"), "\(text)")
        #expect(text.contains("\nSuppressed (baseline): 1 root cycle, 2 objects, "), "\(text)")
        #expect(!text.contains("ROOT CYCLE"), "no trace for an accepted leak: \(text)")

        // A new, different cycle besides the old one: only the new one fails.
        let new = try await LeakgraphRun.run(program, ["new"], options: ["--baseline", file.path])
        #expect(!new.result.signaled && new.result.status == LeakgraphRun.leakStatus, "\(new.result.summary)")
        let newReport = try #require(new.report)
        #expect(newReport.cycles.count == 2)
        let accepted = newReport.cycles.filter { $0.suppressed != nil }
        let failing = newReport.newCycles
        #expect(accepted.map { types($0, in: newReport) } == [["Fixture.Presenter", "Fixture.Screen"]])
        #expect(failing.map { types($0, in: newReport) } == [["Fixture.Session"]])
        #expect(failing.first?.fingerprint != oldFingerprint)
        #expect(new.toolMessages.contains("leakgraph: baseline \(file.path): 1 new leak, 1 suppressed by the baseline (root cycles)"))
        let newText = try #require(new.text)
        #expect(newText.contains("\n1 new leak, 1 suppressed by the baseline (root cycles).\n"), "\(newText)")
        #expect(newText.contains("Session.onEvent (closure) → Session"), "\(newText)")

        // Nothing leaked: nothing to accept, exit 0.
        let fixed = try await LeakgraphRun.run(program, ["fixed"], options: ["--baseline", file.path])
        #expect(!fixed.result.signaled && fixed.result.status == 0 && fixed.report?.leaks.isEmpty == true, "\(fixed.result.summary)")
        #expect(fixed.toolMessages.contains("leakgraph: baseline \(file.path): 0 new leaks, 0 suppressed by the baseline (root cycles)"))
    }

    @Test("a type pattern accepts a cycle with its held objects and held cycle; a site pattern too", arguments: Optimization.allCases)
    func patterns(_ optimization: Optimization) async throws {
        let program = try await program(optimization)
        let withoutPattern = try await LeakgraphRun.run(program, ["cache"])
        #expect(withoutPattern.result.status == LeakgraphRun.leakStatus, "\(withoutPattern.result.summary)")
        let oldFingerprint = try #require(
            withoutPattern.report?.cycles.first { $0.members.contains { withoutPattern.report?.leaks[$0].type == "Fixture.Screen" } }?
                .fingerprint)

        let onlyOld = try baselineFile("version: 1\nfingerprint: \(oldFingerprint)\n")
        let fails = try await LeakgraphRun.run(program, ["cache"], options: ["--baseline", onlyOld.path])
        #expect(!fails.result.signaled && fails.result.status == LeakgraphRun.leakStatus, "the cache is new: \(fails.result.summary)")

        for entry in ["type: ImageCache*  # the image cache lives as long as the process", "site: Fixture.makeCache*"] {
            let file = try baselineFile("# accepted leaks\nversion: 1\nfingerprint: \(oldFingerprint)\n\(entry)\n")
            let run = try await LeakgraphRun.run(program, ["cache"], options: ["--baseline", file.path])
            #expect(!run.result.signaled && run.result.status == 0, "\(entry): \(run.result.summary)")
            let report = try #require(run.report)
            #expect(report.summary.leakedObjects == 7 && report.cycles.count == 2, "nothing dropped")
            let cache = try #require(report.cycles.first { types($0, in: report) == ["Fixture.ImageCache", "Fixture.ImageLoader"] })
            #expect(cache.suppressed?.line == 4 && entry.hasPrefix(cache.suppressed?.entry ?? "?"), "\(String(describing: cache.suppressed))")
            #expect(cache.holds.count == 3 && cache.heldCycles?.count == 1, "the array and the two Thumbnails go along")
            #expect(Set(cache.holds.map { report.leaks[$0].type }).contains("Fixture.Thumbnail"))
            #expect(report.newLeakedObjects == 0)
            let text = try #require(run.text)
            #expect(text.contains("\nSuppressed (baseline): 2 root cycles, 7 objects, "), "\(text)")
            #expect(text.contains(": 1 root cycle (#2), 5 objects, "), "\(text)")
            if entry.hasPrefix("type:") {
                #expect(text.contains(" — the image cache lives as long as the process\n"), "the reason is shown: \(text)")
            }
        }
    }

    @Test(
        "a malformed or newer baseline is one message and exit status 2, before the program runs",
        arguments: [
            ("version: 2\nfingerprint: 0123456789abcdef\n", "line 1: the baseline has version 2, written by a newer LeakGraph"),
            ("version: 1\nfingerprint: 0123\n", "line 2: a fingerprint is 16 hexadecimal digits"),
            ("{\"version\": 1, \"fingerprints\": []}\n", "line 1: not a LeakGraph baseline"),
            ("version: 1\nfile: ThirdPartySDK/*\n", "line 2: unknown entry `file:`"),
        ])
    func malformed(text: String, message: String) async throws {
        let program = try await program(.debug)
        let file = try baselineFile(text)
        let run = try await LeakgraphRun.run(program, ["old"], options: ["--baseline", file.path])
        #expect(!run.result.signaled && run.result.status == 2, "\(run.result.summary)")
        #expect(run.result.standardError.hasPrefix("leakgraph: cannot read the baseline \(file.path): \(message)"), "\(run.result.summary)")
        #expect(run.result.standardError.filter { $0 == "\n" }.count == 1, "one line: \(run.result.summary)")
        #expect(run.report == nil && run.text == nil, "the program was not checked")

        let missing = try await LeakgraphRun.run(
            program, ["old"], options: ["--baseline", file.deletingLastPathComponent().appendingPathComponent("none").path])
        #expect(missing.result.status == 2 && missing.toolMessages.count == 1, "\(missing.result.summary)")
    }

    @Test("leakgraph report applies a baseline to a saved report and writes one from it; exit status 0")
    func reportCommand() async throws {
        let program = try await program(.debug)
        let folder = try Scratch.directory("baseline-report")
        let json = folder.appendingPathComponent("new.json")
        let saved = try await LeakgraphRun.run(program, ["new"], options: ["--json", json.path], writeFiles: false)
        #expect(saved.result.status == LeakgraphRun.leakStatus, "\(saved.result.summary)")
        let written = folder.appendingPathComponent("leakgraph.baseline")
        let leakgraph = try BuildProducts.leakgraph()
        let writing = try await runProcess(
            leakgraph, arguments: ["report", json.path, "--write-baseline", written.path], environment: cleanEnvironment())
        #expect(writing.status == 0, "\(writing.summary)")
        #expect(writing.standardOutput.contains("0 new leaks, 2 suppressed by the baseline"), "\(writing.summary)")
        let baseline = try Baseline.parse(String(contentsOf: written, encoding: .utf8), source: written.path)
        #expect(baseline.entries.count == 2)

        let applying = try await runProcess(
            leakgraph, arguments: ["report", json.path, "--baseline", written.path, "--json", json.path + ".marked"],
            environment: cleanEnvironment())
        #expect(applying.status == 0, "\(applying.summary)")
        let marked = try LeakReport.decode(from: Data(contentsOf: URL(fileURLWithPath: json.path + ".marked")))
        #expect(marked.cycles.allSatisfy { $0.suppressed?.baseline == written.path } && marked.newLeakedObjects == 0)
    }
}
