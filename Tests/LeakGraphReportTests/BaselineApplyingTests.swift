import Foundation
import LeakGraphRender
import LeakGraphReport
import Testing

/// Applying a baseline to hand-built reports: which cycles it accepts, that they stay in the report with
/// what they hold, what a check then fails on, and how the text and JSON show them.
@Suite("Applying baselines")
struct BaselineApplyingTests {
    /// ``ReportFixtures/leakingReport`` with fingerprints: #1 the ring (10 members, 4 held), #2 the chat
    /// group (3 members, 2 held), #3 the session (2 members).
    static var report: LeakReport {
        var report = ReportFixtures.leakingReport
        report.cycles[0].fingerprint = "1111111111111111"
        report.cycles[1].fingerprint = "2222222222222222"
        report.cycles[2].fingerprint = "3333333333333333"
        return report
    }

    static func baseline(_ lines: String) throws -> Baseline {
        try Baseline.parse("version: 1\n" + lines, source: "leakgraph.baseline")
    }

    @Test("a fingerprint entry accepts its cycle with everything it holds; nothing is removed")
    func fingerprint() throws {
        let report = Self.report
        #expect(report.newLeakedObjects == 21)
        let applied = report.applying(try Self.baseline("fingerprint: 1111111111111111  # the ring, on purpose\n"))
        #expect(applied.leaks == report.leaks && applied.references == report.references)
        #expect(applied.cycles.count == 3 && applied.summary == report.summary)
        #expect(applied.cycles[0].suppressed == .init(
            baseline: "leakgraph.baseline", entry: "fingerprint: 1111111111111111", line: 2, reason: "the ring, on purpose"))
        #expect(applied.cycles[1].suppressed == nil && applied.cycles[2].suppressed == nil)
        #expect(applied.newLeakedObjects == 21 - 14)
        #expect(applied.leakedObjectsOutsideLibraries == applied.newLeakedObjects)
        #expect(applied.newCycles.map(\.id) == [1, 2] && applied.suppressedCycles.map(\.id) == [0])
        #expect(ReportSynopsis(applied).leakedObjectsOutsideLibraries == 7)
    }

    @Test("a type pattern matches a member, not a held object; the first matching entry is named")
    func typePattern() throws {
        let held = Self.report.applying(try Self.baseline("type: Chat.Node\ntype: Graph.*\n"))
        #expect(held.suppressedCycles.isEmpty, "Chat.Node and Graph.Node are only held by the group's cycle")
        let applied = Self.report.applying(try Self.baseline("type: Graph.*\ntype: Group\ntype: Chat.*  # chat\n"))
        #expect(applied.cycles.map { $0.suppressed?.entry } == [nil, "type: Group", "type: Chat.*"])
        #expect(applied.newLeakedObjects == 14, "the group's 3 members and 2 held objects, the session's 2")
    }

    @Test("a site pattern matches a member's creation frames, by function or by file")
    func sitePattern() throws {
        let byFile = Self.report.applying(try Self.baseline("site: LinkedRing/*.swift\n"))
        #expect(byFile.cycles.map { $0.suppressed != nil } == [true, false, false])
        let byFunction = Self.report.applying(try Self.baseline("site: LinkedRing.makeRing(*\n"))
        #expect(byFunction.cycles.map { $0.suppressed != nil } == [true, false, false])
        let payload = Self.report.applying(try Self.baseline("site: *Payload.swift\n"))
        #expect(payload.suppressedCycles.isEmpty, "payloads are held, not members")
    }

    @Test("applying again replaces the marks; an empty baseline clears them")
    func reapplying() throws {
        let once = Self.report.applying(try Self.baseline("fingerprint: 1111111111111111\n"))
        let twice = once.applying(try Self.baseline("fingerprint: 3333333333333333\n"))
        #expect(twice.cycles.map { $0.suppressed != nil } == [false, false, true])
        #expect(once.applying(try Self.baseline("")).suppressedCycles.isEmpty)
    }

    @Test("known library leaks are not marked; a cycle they hold is the user's and can be accepted")
    func knownLibraryLeaks() throws {
        let report = HeldByKnownLeakTests.report
        #expect(report.newLeakedObjects == 2)
        let user = try #require(report.cycles.first { $0.knownLibraryLeak == nil })
        let fingerprint = try #require(user.fingerprint)
        let applied = report.applying(try Self.baseline("type: XCTest.*\nfingerprint: \(fingerprint)\n"))
        let library = try #require(applied.cycles.first { $0.knownLibraryLeak != nil })
        #expect(library.suppressed == nil)
        let accepted = try #require(applied.cycles.first { $0.id == user.id })
        #expect(accepted.suppressed?.entry == "fingerprint: \(fingerprint)" && accepted.heldByKnownLibraryLeak == library.id)
        #expect(applied.newLeakedObjects == 0)
    }

    @Test("the built-in baseline holds the known library leaks and matches through the same entries")
    func builtIn() throws {
        let entry = try #require(Baseline.builtIn.entries.first)
        #expect(Baseline.builtIn.source == "built-in" && entry.library?.name == "swift-corelibs-xctest")
        #expect(entry.text == "type: XCTest.XCTestSuite & type: XCTest.XCTestSuiteRun")
        let types = ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"]
        #expect(Baseline.builtIn.entry(matching: nil, memberTypes: types) == entry)
        #expect(KnownLibraryLeaks.match(memberTypes: types) == "known leak in swift-corelibs-xctest: \(entry.reason ?? "")")
    }

    @Test("text: a verdict line, no section for accepted cycles, one line per entry with counts and reason")
    func text() throws {
        let report = Self.report
        let applied = report.applying(
            try Self.baseline("fingerprint: 1111111111111111  # the ring, on purpose\ntype: Chat.Session\n"))
        let text = TextReport.render(applied)
        #expect(text.contains("\n\n1 new leak, 2 suppressed by the baseline (root cycles).\n\nROOT CYCLE #2: 3 objects"))
        #expect(!text.contains("ROOT CYCLE #1") && !text.contains("ROOT CYCLE #3"))
        #expect(!text.contains("DummyObject (0x"), "no trace of an accepted cycle")
        #expect(text.contains("\nSuppressed (baseline): 2 root cycles, 16 objects, 592 bytes — reported, not failing the check\n"))
        #expect(text.contains(
            "\n   fingerprint: 1111111111111111  (leakgraph.baseline, line 2): 1 root cycle (#1), 14 objects, 520 bytes — the ring, on purpose\n"))
        #expect(text.contains("\n   type: Chat.Session  (leakgraph.baseline, line 3): 1 root cycle (#3), 2 objects, 72 bytes\n"))
        #expect(TextReport.render(report.applying(try Self.baseline(""))) == TextReport.render(report), "unchanged without marks")
    }

    @Test("JSON keeps the marks: written, read back, the same report")
    func json() throws {
        let applied = Self.report.applying(try Self.baseline("type: Chat.*  # chat\n"))
        let data = try applied.jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"suppressed\" : {"))
        #expect(text.contains("\"entry\" : \"type: Chat.*\""))
        var expected = applied
        expected.resolveSuspectReferences()
        #expect(try LeakReport.decode(from: data) == expected)
    }

    @Test("a written baseline accepts every user leak; patterns and old reasons kept, stale fingerprints dropped")
    func accepting() throws {
        var report = Self.report
        report.cycles[2].knownLibraryLeak = "known leak in a library"
        let old = try Self.baseline(
            "type: Chat.Group  # groups are forever\nfingerprint: 1111111111111111  # old reason\nfingerprint: 9999999999999999\n")
        let written = Baseline.accepting(report, source: "new.baseline", keeping: old)
        #expect(written.entries.map(\.text) == ["type: Chat.Group", "fingerprint: 1111111111111111"])
        #expect(written.entries.map(\.reason) == ["groups are forever", "old reason"])
        let fresh = Baseline.accepting(report, source: "new.baseline")
        #expect(fresh.entries.map(\.text) == ["fingerprint: 1111111111111111", "fingerprint: 2222222222222222"])
        #expect(fresh.headerComments == Baseline.defaultHeaderComments)
        let reread = try Baseline.parse(fresh.text, source: "new.baseline")
        #expect(report.applying(reread).newLeakedObjects == 0)
        #expect(reread.entries[0].reason?.hasPrefix("DummyObject") == true || reread.entries[0].reason?.contains("DummyObject") == true)
        #expect(reread.entries[0].reason?.contains("created at main.swift:12") == true)
    }

    @Test("a combined report keeps the marks")
    func combining() throws {
        let applied = Self.report.applying(try Self.baseline("fingerprint: 2222222222222222\n"))
        let combined = LeakReport(
            combining: [.init(name: "XCTest", report: applied), .init(name: "Swift Testing", report: Self.report)],
            program: applied.program)
        #expect(combined.cycles.map { $0.suppressed != nil } == [false, true, false, false, false, false])
        #expect(combined.newLeakedObjects == 42 - 5)
    }
}
