import Foundation
import LeakGraphReport
import Testing

// `leakgraph report FILE.json`: re-renders a JSON report that a real `leakgraph run` wrote, and refuses
// damaged, foreign and newer files with one line and exit status 2.

@Suite("leakgraph report", .timeLimit(.minutes(10)))
struct ReportCommandTests {
    /// Runs the built `leakgraph` with `arguments`.
    private func leakgraph(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcess(try BuildProducts.leakgraph(), arguments: arguments, environment: cleanEnvironment())
    }

    /// The JSON and text files of one `leakgraph run --json J --text T -- program mode`.
    private struct SavedRun {
        var json: URL
        var text: String
        var report: LeakReport
    }

    /// Runs fixture `name` in `mode` under `leakgraph run`, keeping the JSON file in a scratch folder.
    private func savedRun(
        _ name: String, _ optimization: Optimization = .debug, mode: String = "leak", options: [String] = []
    ) async throws -> SavedRun {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable(name, optimization).path
        let folder = try Scratch.directory("report-\(name)")
        let json = folder.appendingPathComponent("report.json")
        let text = folder.appendingPathComponent("report.txt")
        let run = try await leakgraph(["run", "--json", json.path, "--text", text.path] + options + ["--", program, mode])
        try #require(!run.signaled && run.status == (mode == "leak" ? LeakgraphRun.leakStatus : 0), "\(run.summary)")
        let data = try #require(FileManager.default.contents(atPath: json.path), "no JSON report: \(run.summary)")
        return SavedRun(
            json: json, text: try String(contentsOf: text, encoding: .utf8), report: try LeakReport.decode(from: data)
        )
    }

    /// Checks that `result` is a tool error: exit status 2, nothing on standard output, and exactly one
    /// line on standard error, `leakgraph: ` followed by `prefix` and more.
    private func expectOneLineError(
        _ result: ProcessResult, startingWith prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(!result.signaled && result.status == 2, "\(result.summary)", sourceLocation: sourceLocation)
        #expect(result.standardOutput.isEmpty, "\(result.summary)", sourceLocation: sourceLocation)
        let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "one line, ending with a newline: \(result.summary)", sourceLocation: sourceLocation)
        #expect(result.standardError.hasPrefix("leakgraph: " + prefix), "\(result.summary)", sourceLocation: sourceLocation)
    }

    @Test("leakgraph diff: the leaking run against the fixed one and back; exit 1 only for new leaks")
    func diff() async throws {
        let leaking = try await savedRun("ArrayChildren", options: ["--live-histogram"])
        let fixed = try await savedRun("ArrayChildren", mode: "fixed", options: ["--live-histogram"])
        let liveTypes = try #require(leaking.report.liveTypes, "--live-histogram counts live objects by type")
        let leakedTypes = Set(leaking.report.leaks.map(\.type))
        #expect(leakedTypes.allSatisfy { type in liveTypes.contains { $0.type == type } }, "leaked objects are live too")
        #expect(liveTypes.reduce(0) { $0 + $1.count } == leaking.report.summary.liveObjects)
        #expect(try await savedRun("ArrayChildren").report.liveTypes == nil, "only when asked")
        let folder = try Scratch.directory("diff")
        let json = folder.appendingPathComponent("diff.json")

        let regression = try await leakgraph(["diff", fixed.json.path, leaking.json.path, "--json", json.path])
        #expect(!regression.signaled && regression.status == 1, "\(regression.summary)")
        #expect(regression.standardOutput.hasPrefix("2 new leaks;"), "\(regression.summary)")
        #expect(regression.standardOutput.contains("  new     0 → 1 ("))
        let written = try JSONDecoder().decode(ReportDiff.self, from: Data(contentsOf: json))
        #expect(written == ReportDiff(old: fixed.report, new: leaking.report))
        #expect(written.liveTypes?.isEmpty == false)
        #expect(regression.standardOutput.contains("LIVE OBJECTS BY TYPE"))

        let improvement = try await leakgraph(["diff", leaking.json.path, fixed.json.path])
        #expect(!improvement.signaled && improvement.status == 0, "\(improvement.summary)")
        #expect(improvement.standardOutput.hasPrefix("0 new leaks, 2 gone;"), "\(improvement.summary)")

        let missing = try await leakgraph(["diff", leaking.json.path, folder.appendingPathComponent("none.json").path])
        expectOneLineError(missing, startingWith: "cannot read ")
    }

    @Test("a report from a real run renders to exactly the text the run printed; exit status 0 despite the leaks")
    func rendersRealReport() async throws {
        let saved = try await savedRun("ArrayChildren")
        #expect(saved.report.summary.leakedObjects == 9)

        let toStandardOutput = try await leakgraph(["report", saved.json.path])
        #expect(!toStandardOutput.signaled && toStandardOutput.status == 0, "\(toStandardOutput.summary)")
        #expect(toStandardOutput.standardOutput == saved.text)
        #expect(toStandardOutput.standardError.isEmpty)

        let textFile = try Scratch.directory("report-text").appendingPathComponent("again.txt")
        let toFile = try await leakgraph(["report", saved.json.path, "--text", textFile.path])
        #expect(toFile.status == 0, "\(toFile.summary)")
        #expect(toFile.standardOutput.isEmpty && toFile.standardError.isEmpty)
        #expect(try String(contentsOf: textFile, encoding: .utf8) == saved.text)
    }

    @Test("the real report carries a suspect and a fingerprint per cycle, and the text shows them")
    func suspectsAndFingerprints() async throws {
        let family = try await savedRun("ArrayChildren")
        let suspects = family.report.cycles.compactMap(\.suspect)
        #expect(suspects.count == 2)
        // Child.parent is named like a back-reference (rule 1); File.folder points back to the Folder that
        // keeps the file in `files` (rule 3).
        #expect(Set(suspects.map(\.label)) == ["parent", "folder"])
        #expect(Set(suspects.map(\.hint)) == ["make it `weak var parent`", "make it `weak var folder`"])
        let leaksByID = Dictionary(uniqueKeysWithValues: family.report.leaks.map { ($0.id, $0) })
        for suspect in suspects {
            #expect(leaksByID[suspect.to]?.type == (suspect.label == "parent" ? "Fixture.Parent" : "Fixture.Folder"))
        }
        let fingerprints = family.report.cycles.compactMap(\.fingerprint)
        #expect(fingerprints.count == 2 && Set(fingerprints).count == 2)
        #expect(family.text.contains("   Suspect: Child.parent — "))
        #expect(family.text.contains("   Suspect: File.folder — it points back to the object that keeps this one in `files`."))
        // An element of an array is named from the field holding the storage (arrays of classes share
        // one storage type, `_ContiguousArrayStorage<Swift.AnyObject>`, which says less).
        #expect(family.text.contains("   Folder.files[0] → File.folder → Folder"))
        #expect(family.text.contains("   Parent.children["))
        for fingerprint in fingerprints {
            #expect(family.text.contains("   Fingerprint: \(fingerprint)\n"))
        }

        let closure = try await savedRun("ClosureSelf")
        let suspect = try #require(closure.report.cycles.first?.suspect)
        #expect(suspect.label.hasPrefix("handler") && suspect.label.hasSuffix("(closure)"))
        // The closure's only capture is the Button (its context is the Button): where it was formed is not
        // recorded, so both fixes are offered, each with where it compiles.
        #expect(suspect.hint.hasPrefix("capture the `Button` weakly: `{ [weak self] in … }` in a method of `Button`"))
    }

    @Test("fingerprints are the same in another run and in a release build")
    func fingerprintsAreStable() async throws {
        func fingerprints(_ run: SavedRun) -> [Set<String>: Int] {
            // Per cycle: the set of member types with its fingerprint, so cycles are matched by shape.
            var result: [Set<String>: Int] = [:]
            let types = Dictionary(uniqueKeysWithValues: run.report.leaks.map { ($0.id, $0.type) })
            for cycle in run.report.cycles {
                let key = Set(cycle.members.compactMap { types[$0] } + [cycle.fingerprint ?? "none"])
                result[key, default: 0] += 1
            }
            return result
        }
        let first = try await savedRun("ArrayChildren")
        let second = try await savedRun("ArrayChildren")
        let release = try await savedRun("ArrayChildren", .release)
        #expect(fingerprints(first) == fingerprints(second))
        #expect(fingerprints(first) == fingerprints(release))
        #expect(Set(first.report.cycles.compactMap(\.fingerprint)) == Set(release.report.cycles.compactMap(\.fingerprint)))
    }

    @Test("--dot, --svg and --html write the files `leakgraph run` writes for the same report")
    func graphOutputs() async throws {
        let runFolder = try Scratch.directory("report-graphs-run")
        let runDOT = runFolder.appendingPathComponent("family.dot")
        let saved = try await savedRun("ArrayChildren", options: ["--dot", runDOT.path])
        let folder = try Scratch.directory("report-graphs")
        let dot = folder.appendingPathComponent("family.dot")
        let svg = folder.appendingPathComponent("family.svg")
        let html = folder.appendingPathComponent("family.html")
        let result = try await leakgraph(["report", saved.json.path, "--dot", dot.path, "--svg", svg.path, "--html", html.path])
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        #expect(result.standardOutput.isEmpty, "the text goes nowhere when an output option is given")
        // Two root cycles: an overview in the named file and one file per cycle beside it, as `run` writes.
        for name in ["family.dot", "family-cycle-1.dot", "family-cycle-2.dot"] {
            let fromReport = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let fromRun = try String(contentsOf: runFolder.appendingPathComponent(name), encoding: .utf8)
            #expect(fromReport == fromRun, "\(name) differs between `run` and `report`")
            #expect(fromReport.hasPrefix("digraph"))
        }
        let cycleDOT = try String(contentsOf: folder.appendingPathComponent("family-cycle-1.dot"), encoding: .utf8)
        #expect(cycleDOT.contains("suspect"), "the suspect reference is marked in the cycle's graph")
        let svgText = try String(contentsOf: svg, encoding: .utf8)
        #expect(svgText.contains("<svg"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("family-cycle-2.svg").path))
        let htmlText = try String(contentsOf: html, encoding: .utf8)
        #expect(htmlText.contains("<svg") && htmlText.lowercased().contains("<html"))
        for fingerprint in saved.report.cycles.compactMap(\.fingerprint) {
            #expect(htmlText.contains(fingerprint))
        }
    }

    @Test("a clean report renders too, with exit status 0")
    func cleanReport() async throws {
        let saved = try await savedRun("ArrayChildren", mode: "fixed")
        let result = try await leakgraph(["report", saved.json.path])
        #expect(result.status == 0, "\(result.summary)")
        #expect(result.standardOutput == saved.text)
        #expect(result.standardOutput.hasSuffix("No leaks found.\n"))
    }

    @Test("a missing file, or a folder with no checks.jsonl and no report: one line, exit status 2")
    func missingFile() async throws {
        let folder = try Scratch.directory("report-missing")
        let missing = folder.appendingPathComponent("nothing.json").path
        expectOneLineError(try await leakgraph(["report", missing]), startingWith: "cannot read \(missing): no such file")
        expectOneLineError(try await leakgraph(["report", folder.path]), startingWith: "cannot read \(folder.path): not a report folder")
    }

    @Test("damaged, foreign, newer-schema and mismatched files: one line each, exit status 2")
    func unusableFiles() async throws {
        let saved = try await savedRun("ArrayChildren")
        let original = try Data(contentsOf: saved.json)
        var object = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        object["schemaVersion"] = 3
        let newer = try JSONSerialization.data(withJSONObject: object)
        object["schemaVersion"] = 2
        object["summary"] = "nine leaks"
        let mismatched = try JSONSerialization.data(withJSONObject: object)

        let cases: [(name: String, data: Data, message: String)] = [
            ("truncated", Data(original.prefix(original.count / 2)), "The file is not valid JSON (damaged or truncated)"),
            ("binary", Data([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), "The file is not valid JSON (damaged or truncated)"),
            ("empty", Data(), "The file is not valid JSON (damaged or truncated)"),
            ("package", Data(#"{"name": "package", "version": "1.0.0", "dependencies": {}}"#.utf8), "The file is JSON but not a LeakGraph report"),
            ("newer", newer, "The report has schema version 3, written by a newer LeakGraph"),
            ("mismatched", mismatched, "The report says schema version 2 but does not match it: summary has the wrong type"),
        ]
        let folder = try Scratch.directory("report-unusable")
        for (name, data, message) in cases {
            let file = folder.appendingPathComponent("\(name).json")
            try data.write(to: file)
            let result = try await leakgraph(["report", file.path])
            expectOneLineError(result, startingWith: "cannot read \(file.path): \(message)")
        }
    }

    @Test("an output in a missing directory fails before reading anything; nothing is written")
    func unwritableOutput() async throws {
        let saved = try await savedRun("ArrayChildren")
        let result = try await leakgraph(["report", saved.json.path, "--text", "/nonexistent-dir/report.txt"])
        expectOneLineError(
            result,
            startingWith: "cannot write the text summary to /nonexistent-dir/report.txt: the directory /nonexistent-dir does not exist"
        )
    }

    @Test("usage errors exit with 2; help documents the exit status", arguments: [["report"], ["report", "a.json", "b.json"], ["report", "a.json", "--bogus"]])
    func usage(_ arguments: [String]) async throws {
        let result = try await leakgraph(arguments)
        #expect(!result.signaled && result.status == 2, "\(result.summary)")
        #expect(result.standardError.contains("Usage: leakgraph report"), "\(result.summary)")
    }

    @Test("help says why a report with leaks still exits with 0")
    func help() async throws {
        let result = try await leakgraph(["report", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("leakgraph report <report.json> [--json <path>] [--text <path>] [--dot <path>] [--svg <path>] [--html <path>]"))
        #expect(result.standardOutput.contains("Exit status: 0 when the report was rendered, even when it lists leaks"))
    }
}
