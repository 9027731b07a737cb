import LeakGraphRender
import LeakGraphTestSupport
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphReport
import Testing

@Suite("Text report")
struct TextReportTests {
    @Test("a report with three root cycles renders as the golden file")
    func leakingReportGolden() throws {
        try expectMatchesGolden(TextReport.render(ReportFixtures.leakingReport), named: "leaking-report.txt")
    }

    @Test("a report without leaks renders as the golden file")
    func cleanReportGolden() throws {
        try expectMatchesGolden(TextReport.render(ReportFixtures.cleanReport), named: "clean-report.txt")
    }

    @Test("a short path limit elides the rest of the cycle")
    func pathLimit() throws {
        let text = TextReport.render(ReportFixtures.leakingReport, pathLimit: 4)
        let lines = text.split(separator: "\n").map(String.init)
        let ring = try #require(lines.firstIndex(of: "ROOT CYCLE #1: 10 objects, 320 bytes"))
        #expect(lines[ring + 1].hasPrefix("   DummyObject (0x5555aa001000, 32 bytes)"))
        #expect(lines[ring + 2 ... ring + 4].allSatisfy { $0.hasPrefix("     —next→ DummyObject") })
        #expect(lines[ring + 5] == "     … 6 more objects in this cycle")
        #expect(lines[ring + 6].hasPrefix("   holds 4 objects"))
        // The group cycle draws all three members in four lines; only the last reference is left out.
        let group = try #require(lines.firstIndex(of: "ROOT CYCLE #2: 3 objects, 128 bytes"))
        #expect(lines[group + 4] == "     —members[1]→ Member (0x5555aa001400, 32 bytes)")
        #expect(lines[group + 5] == "     … more references among these objects")
    }

    @Test("a ring of 100,000 leaked objects prints twenty steps and a count of the rest")
    func hundredThousandRing() {
        let count = 100_000
        var graph = ObjectGraph()
        for index in 0 ..< count {
            graph.addNode(ObjectNode(address: 0x1000 + 16 * UInt64(index), typeName: "Ring.Link", kind: .class, size: 16, retainCount: 1))
        }
        for index in 0 ..< count {
            graph.addReference(from: index, to: (index + 1) % count, path: path("next"))
        }
        let analysis = LeakAnalysis.analyze(graph)
        let report = LeakReport(analysis: analysis, program: .init(path: "/ring", arguments: [], exitStatus: 0))
        let text = TextReport.render(report)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(text.hasPrefix("Process ring: 100,000 leaks of your code for 1,600,000 total leaked bytes, in 1 leak family (1 root cycle).\n"))
        #expect(lines.contains("ROOT CYCLE #1: 100,000 objects, 1,600,000 bytes"))
        #expect(lines.filter { $0.hasPrefix("     —next→ Link (0x") }.count == 19)
        #expect(lines.contains("     … 99,980 more objects in this cycle"))
        // The ring as one abbreviated path, closed by the suspect: the link from the last object to the first.
        #expect(lines.contains("   Link.next → Link.next → … (100,000 objects in the ring) → Link.next → Link"))
        #expect(lines.contains { $0.hasPrefix("   Suspect: Link.next — ") })
        #expect(lines.contains { $0.hasPrefix("   Fingerprint: ") })
        // Header (3), blank, cycle title, ring, suspect, fingerprint, 20 object lines, the elision, and the
        // "" after the final newline.
        #expect(lines.count == 3 + 1 + 1 + 3 + 20 + 1 + 1)
    }

    @Test("leaked objects outside every listed cycle are still listed, by type")
    func objectsOutsideCycles() {
        var report = ReportFixtures.cleanReport
        report.leaks = [
            .init(id: 0, address: "0x10", type: "App.Orphan", kind: "class", size: 16, retainCount: 1, cycle: nil, backtrace: []),
            .init(id: 1, address: "0x20", type: "App.Orphan", kind: "class", size: 16, retainCount: 1, cycle: nil, backtrace: []),
        ]
        report.summary.leakedObjects = 2
        report.summary.leakedBytes = 32
        let lines = TextReport.render(report).split(separator: "\n").map(String.init)
        #expect(lines.first == "Process LinkedRing: 2 leaks of your code for 32 total leaked bytes.")
        #expect(lines.suffix(2) == ["OTHER LEAKED OBJECTS: 2 objects, 32 bytes", "   Orphan × 2 (32 bytes)"])
    }

    @Test("the text is its header, from the program and the totals alone, then a body that names no program")
    func headerAndBody() {
        for report in [ReportFixtures.leakingReport, ReportFixtures.cleanReport] {
            let header = TextReport.header(program: report.program, summary: report.summary, totals: report.totals)
            #expect(TextReport.render(report) == header + TextReport.body(report))
            #expect(header.split(separator: "\n", omittingEmptySubsequences: false).count == 4, "three lines")
            var other = report
            other.program = LeakReport.Program(path: "/elsewhere/other", arguments: ["a b"], exitStatus: 9)
            #expect(TextReport.body(other) == TextReport.body(report))
        }
    }

    @Test("a check made while the program ran says so, not an exit status; a signal or an exit says theirs")
    func programState() {
        let summary = ReportFixtures.leakingReport.summary
        let running = LeakReport.Program(path: "/srv/App", arguments: [], exitStatus: 0, running: true)
        #expect(TextReport.header(program: running, summary: summary).contains("   (running, checked while it ran)\n"))
        let ended = LeakReport.Program(path: "/srv/App", arguments: [], exitStatus: 143, signal: "SIGTERM")
        #expect(TextReport.header(program: ended, summary: summary).contains("   (ended by SIGTERM, checked first)\n"))
        let exited = LeakReport.Program(path: "/srv/App", arguments: [], exitStatus: 0)
        #expect(TextReport.header(program: exited, summary: summary).contains("   (exit status 0)\n"))
    }
}
