import Foundation
import LeakGraphReport
import Testing

// Issue 27: where each suspect reference was stored. Tests/Fixtures/StoreSites closes its cycles far from
// where the objects are made (a back reference set in a method of another type, a delegate assigned in a
// wiring function, a closure stored by a setter, a cycle closed on another thread, a retain passed +1
// through three calls), each line that stores a reference the report must name marked `// store: MODE
// Type.label`; every cut of the mode whose reference has a marker must name that file and line, at -Onone
// and -O. The ambiguous mode's history allows two answers: "not known", never a line stated as fact.
// The trap (mode fixed: every shape with its back reference weak or cleared) reports nothing.

@Suite("Store sites of suspect references (--history)", .timeLimit(.minutes(10)))
struct StoreSiteFixtureTests {
    /// A line marked `// store: MODE Type.label` (or `// candidate: …`) in the fixture's sources.
    struct Marker: Hashable {
        var mode: String
        var reference: String
        var file: String
        var line: Int
        var candidate: Bool
    }

    static let markers: [Marker] = {
        let folder = FixtureBuilds.fixturesDirectory.appendingPathComponent("StoreSites")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var found: [Marker] = []
        for file in files where file.hasSuffix(".swift") {
            let text = (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for tag in ["// store: ", "// candidate: "] {
                    guard let range = line.range(of: tag) else { continue }
                    let words = line[range.upperBound...].split(separator: " ")
                    guard words.count == 2 else { continue }
                    found.append(
                        Marker(
                            mode: String(words[0]), reference: String(words[1]), file: file, line: index + 1,
                            candidate: tag.contains("candidate")))
                }
            }
        }
        return found
    }()

    /// `Type.label` of a cut, as markers write it (`Button.onTap` for `onTap (closure)`).
    static func key(_ report: LeakReport, _ cut: LeakReport.Suspect) -> String {
        let type = report.leaks[cut.from].type.split(separator: ".").last.map(String.init) ?? ""
        let label = cut.label.replacingOccurrences(of: " (closure)", with: "")
        return "\(type).\(label)"
    }

    static let namedModes = ["backReference", "delegate", "closureSetter", "otherThread", "passedUp"]

    @Test("each cut names its marked store line", arguments: Optimization.allCases, namedModes)
    func namesTheStoreLine(_ optimization: Optimization, _ mode: String) async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", optimization).path
        let run = try await LeakgraphRun.run(program, [mode], options: ["--history", "Fixture.*"])
        let report = try #require(run.report, "\(run.result.summary)")
        let cycle = try #require(report.cycles.first, "\(run.result.summary)")
        let cuts = [cycle.suspect].compactMap { $0 } + (cycle.otherCuts ?? [])
        let expected = Self.markers.filter { $0.mode == mode && !$0.candidate }
        var checked = 0
        for cut in cuts {
            guard let marker = expected.first(where: { $0.reference == Self.key(report, cut) }) else { continue }
            let reference = try #require(cut.reference.map { report.references[$0] })
            let site = try #require(reference.storeSite, "no store site for \(Self.key(report, cut))")
            #expect(site.known, "\(Self.key(report, cut)): \(site)")
            let frame = try #require(site.site?.frame)
            #expect(frame.file.map { $0.hasSuffix("/" + marker.file) } == true, "\(frame)")
            #expect(frame.line == marker.line, "\(Self.key(report, cut)): \(frame), expected \(marker.file):\(marker.line)")
            checked += 1
        }
        #expect(checked > 0, "no cut of \(cuts.map { Self.key(report, $0) }) has a marker in mode \(mode)")
        let text = try #require(run.text)
        #expect(text.contains("Stored at "), "\(text)")
    }

    @Test("an ambiguous history says not known, with candidates", arguments: Optimization.allCases)
    func ambiguous(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", optimization).path
        let run = try await LeakgraphRun.run(program, ["ambiguous"], options: ["--history", "Fixture.*"])
        let report = try #require(run.report, "\(run.result.summary)")
        let suspect = try #require(report.cycles.first?.suspect)
        #expect(Self.key(report, suspect) == "HubClient.owner")
        let site = try #require(suspect.reference.flatMap { report.references[$0].storeSite })
        #expect(!site.known, "\(site)")
        #expect(site.site == nil)
        #expect((site.candidates ?? []).count >= 2, "\(site)")
        let text = try #require(run.text)
        #expect(text.contains("Stored: not known"), "\(text)")
    }

    @Test("--history auto records the first run's cycle types in a second run", arguments: [Optimization.release])
    func auto(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", optimization).path
        let run = try await LeakgraphRun.run(program, ["delegate"], options: ["--history", "auto"])
        let recording = run.toolMessages.first { $0.contains("--history auto: recording ") }
        #expect(recording?.contains("Fixture.Downloader") == true && recording?.contains("Fixture.Screen") == true, "\(run.toolMessages)")
        let report = try #require(run.report)
        let site = try #require(report.cycles.first?.suspect?.reference.flatMap { report.references[$0].storeSite })
        #expect(site.known && site.site?.frame?.line == Self.markers.first { $0.mode == "delegate" }?.line, "\(site)")
    }

    @Test("the trap: every shape fixed reports nothing", arguments: Optimization.allCases)
    func fixed(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", optimization).path
        let run = try await LeakgraphRun.run(program, ["fixed"], options: ["--history", "Fixture.*"])
        #expect(run.report?.leaks.isEmpty == true, "\(run.result.summary)")
        #expect(run.result.status == 0)
    }

    @Test("without --history no store site is written")
    func off() async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", .debug).path
        let run = try await LeakgraphRun.run(program, ["delegate"])
        let report = try #require(run.report)
        #expect(report.references.allSatisfy { $0.storeSite == nil })
        #expect(run.text?.contains("Stored") == false)
    }

    @Test("a bad --history value is a usage error")
    func usage() async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", .debug).path
        let run = try await LeakgraphRun.run(program, ["delegate"], options: ["--history", "A,B"])
        #expect(run.result.status == 2)
        let both = try await LeakgraphRun.run(program, ["delegate"], options: ["--history", "auto", "--history", "Room"])
        #expect(both.result.status == 2)
    }
}

extension StoreSiteFixtureTests {
    @Test("the HTML report and the suspect edge's tooltip say where it was stored")
    func htmlAndTooltip() async throws {
        let program = try await FixtureBuilds.shared.executable("StoreSites", .release).path
        let folder = try Scratch.directory("store-sites-html")
        let html = folder.appendingPathComponent("report.html").path
        let svg = folder.appendingPathComponent("graph.svg").path
        let run = try await LeakgraphRun.run(program, ["delegate"], options: ["--history", "Fixture.*", "--html", html, "--svg", svg])
        #expect(run.report != nil, "\(run.result.summary)")
        let line = try #require(Self.markers.first { $0.mode == "delegate" }?.line)
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("<p class=\"stored\">Stored at Wiring.swift:\(line) in wire(_:weakly:)</p>"))
        let drawing = try String(contentsOfFile: svg, encoding: .utf8)
        #expect(drawing.contains("Stored at Wiring.swift:\(line) in wire(_:weakly:)"))
    }
}
