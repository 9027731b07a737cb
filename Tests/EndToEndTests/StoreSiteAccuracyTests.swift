import Foundation
import LeakGraphReport
import Testing

// Issue 27: the top-1 accuracy of the named store line over every fixture with a cycle. Each leaking mode
// (every mode but `fixed`) of every fixture with a `Mode` enum runs under `leakgraph run --history auto`,
// at -Onone and -O; each cut of each root cycle (the suspect and every other cut) is compared with the line
// marked `// store: MODE Type.label` in the fixture's sources (the form StoreSiteFixtureTests reads).
//
// It takes long (every fixture compiled twice, every mode run twice), so it runs only when
// LEAKGRAPH_STORE_SITE_ACCURACY names a file for its table: `scripts/store-site-accuracy` does that and
// prints the table (docs/how-it-works.md, "Where a reference was stored", shows it). It fails on any
// cut that names a line other than the marked one: a wrong line stated as fact.

@Suite("Store-site accuracy over every fixture (--history auto)")
struct StoreSiteAccuracyTests {
    /// What one cut's store site was, against the fixture's marker.
    enum Outcome: String, CaseIterable {
        /// The named line is the marked one.
        case right
        /// A line was named, and it is not the marked one.
        case wrong
        /// The report says "not known" (with candidates).
        case notKnown = "not known"
        /// The report names the function alone: code the compiler gave no line, or (optimized code) a
        /// caller's retain of an argument passed +1 to the callee that stores it.
        case functionOnly = "function, no line"
        /// A line was named, but the fixture marks none for this reference.
        case unmarked
        /// No store site: the target's type was not recorded (the standard library's storage, a closure
        /// context, a box), or the second run did not leak the same way.
        case noHistory = "no history"
    }

    /// One cut's row of the table.
    struct Row {
        var fixture: String
        var mode: String
        var optimization: Optimization
        var reference: String
        var outcome: Outcome
        var named: String
    }

    static let output = ProcessInfo.processInfo.environment["LEAKGRAPH_STORE_SITE_ACCURACY"]

    /// The fixtures with a `Mode` enum, and their modes but `fixed` (only those LEAKGRAPH_STORE_SITE_FIXTURES
    /// names, comma-separated, when it is set).
    static func fixtures() -> [(name: String, modes: [String])] {
        let folder = FixtureBuilds.fixturesDirectory
        let only = ProcessInfo.processInfo.environment["LEAKGRAPH_STORE_SITE_FIXTURES"].map {
            Set($0.split(separator: ",").map(String.init))
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
            .filter { only?.contains($0) ?? true }
        var found: [(String, [String])] = []
        for name in names where name != "Support" {
            let source = folder.appendingPathComponent(name).appendingPathComponent("main.swift")
            guard let text = try? String(contentsOf: source, encoding: .utf8),
                let start = text.range(of: "enum Mode: String, CaseIterable {"),
                let end = text[start.upperBound...].firstIndex(of: "}")
            else { continue }
            let cases = text[start.upperBound..<end].replacingOccurrences(of: "case", with: "")
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            found.append((name, cases.filter { !$0.isEmpty && $0 != "fixed" }))
        }
        return found
    }

    /// The fixture's `// store: MODE Type.label` markers (`MODE,MODE` for a line several modes share):
    /// `file:line` of each marked line, by mode and reference (a reference stored on several lines has several).
    static func markers(_ fixture: String) -> [String: Set<String>] {
        let folder = FixtureBuilds.fixturesDirectory.appendingPathComponent(fixture)
        var found: [String: Set<String>] = [:]
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where file.hasSuffix(".swift") {
            let text = (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let range = line.range(of: "// store: ") else { continue }
                let words = line[range.upperBound...].split(separator: " ")
                guard words.count == 2 else { continue }
                for mode in words[0].split(separator: ",") {
                    found["\(mode) \(words[1])", default: []].insert("\(file):\(index + 1)")
                }
            }
        }
        return found
    }

    /// `Type.label` of a cut, as markers write it: the holder's short type name without generic arguments,
    /// the label without ` (closure)`.
    static func key(_ report: LeakReport, _ cut: LeakReport.Suspect) -> String {
        let type = report.leaks[cut.from].type.prefix { $0 != "<" }.split(separator: ".").last.map(String.init) ?? ""
        return "\(type).\(cut.label.replacingOccurrences(of: " (closure)", with: ""))"
    }

    @Test("every fixture's cuts name their marked store line or say not known", .enabled(if: output != nil))
    func accuracy() async throws {
        var rows: [Row] = []
        for (fixture, modes) in Self.fixtures() {
            let markers = Self.markers(fixture)
            for optimization in Optimization.allCases {
                guard let program = try? await FixtureBuilds.shared.executable(fixture, optimization).path else {
                    continue
                }
                for mode in modes {
                    let run = try await LeakgraphRun.run(program, [mode], options: ["--history", "auto"])
                    guard let report = run.report else { continue }
                    for cycle in report.cycles where cycle.knownLibraryLeak == nil {
                        for cut in [cycle.suspect].compactMap({ $0 }) + (cycle.otherCuts ?? []) {
                            let key = Self.key(report, cut)
                            let site = cut.reference.flatMap { report.references[$0].storeSite }
                            let frame = site?.site?.frame
                            let named = frame.map { "\(($0.file ?? "?").split(separator: "/").last ?? ""):\($0.line ?? 0)" } ?? ""
                            let outcome: Outcome
                            if let site, site.known, let frame, frame.line == nil {
                                outcome = .functionOnly
                            } else if let site, site.known, let marker = markers["\(mode) \(key)"] {
                                outcome = marker.contains(named) ? .right : .wrong
                            } else if let site, site.known {
                                outcome = .unmarked
                            } else if site != nil {
                                outcome = .notKnown
                            } else {
                                outcome = .noHistory
                            }
                            rows.append(Row(fixture: fixture, mode: mode, optimization: optimization, reference: key, outcome: outcome, named: named))
                        }
                    }
                }
            }
        }
        let table = Self.table(rows)
        if let output = Self.output {
            try table.write(toFile: output, atomically: true, encoding: .utf8)
        }
        print(table)
        let wrong = rows.filter { $0.outcome == .wrong }
        #expect(wrong.isEmpty, "\(wrong.map { "\($0.fixture) \($0.mode) \($0.optimization.rawValue) \($0.reference) named \($0.named)" })")
    }

    /// The rows as a Markdown table, then the counts and the top-1 accuracy over the marked cuts.
    static func table(_ rows: [Row]) -> String {
        var lines = ["| fixture | mode | build | reference | store site | named |", "|---|---|---|---|---|---|"]
        for row in rows {
            lines.append(
                "| \(row.fixture) | \(row.mode) | \(row.optimization.flag) | `\(row.reference)` | \(row.outcome.rawValue) | \(row.named) |")
        }
        let count = { (outcome: Outcome) in rows.filter { $0.outcome == outcome }.count }
        let recorded = rows.count - count(.noHistory)
        lines.append("")
        lines.append(
            Outcome.allCases.map { "\($0.rawValue): \(count($0))" }.joined(separator: ", ") + " (of \(rows.count) cuts)")
        if recorded > 0 {
            let percent = Double(count(.right) * 1000 / recorded) / 10
            lines.append("top-1: the marked line named for \(count(.right)) of \(recorded) cuts with a history (\(percent)%)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
