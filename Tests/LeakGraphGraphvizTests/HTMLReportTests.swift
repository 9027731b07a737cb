import Foundation
import LeakGraphGraphviz
import LeakGraphRender
import LeakGraphReport
import Testing

@Suite("HTML report")
struct HTMLReportTests {
    static func page(_ report: LeakReport) throws -> (html: String, graphs: [RenderedGraph]) {
        let graphs = try SVGRenderer.render(DOTRenderer.graphs(for: report))
        return (HTMLReport.render(report, graphs: graphs), graphs)
    }

    @Test("the page holds every SVG inline, without XML prologs")
    func inlineSVGs() throws {
        let (html, graphs) = try Self.page(GraphFixtures.threeCycleReport)
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
        #expect(html.components(separatedBy: "<svg ").count - 1 == graphs.count)
        #expect(html.components(separatedBy: "</svg>").count - 1 == graphs.count)
        #expect(!html.contains("<?xml"))
        #expect(!html.contains("<!DOCTYPE svg"))
        // Graphviz writes `-` in ids as `&#45;`; the SVG ids are prefixed `graph-` so they do not clash
        // with the sections' ids.
        for name in ["overview", "cycle&#45;1", "cycle&#45;2", "cycle&#45;3"] {
            #expect(html.contains("<g id=\"graph&#45;\(name)\" class=\"graph\""))
        }
        for cycle in 1 ... 3 {
            #expect(html.contains("<section class=\"cycle\" id=\"cycle-\(cycle)\">"))
            #expect(html.contains("<a href=\"#cycle-\(cycle)\">#\(cycle)</a>"))
        }
    }

    @Test("the page loads nothing: no scripts, style sheets, images or remote links")
    func selfContained() throws {
        let (html, _) = try Self.page(GraphFixtures.ringReport)
        for forbidden in ["<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "href=\"http"] {
            #expect(!html.contains(forbidden), "the page contains \(forbidden)")
        }
        #expect(html.contains("<style>"))
    }

    @Test("type names, fingerprints and program arguments are escaped")
    func escaping() throws {
        let (html, _) = try Self.page(GraphFixtures.threeCycleReport)
        #expect(!html.contains("Weird<"))
        #expect(html.contains("Weird&lt;&quot;quoted&quot;&gt; &amp; \\Back"))
        #expect(!html.contains("<b>&amp;</b>"))
        #expect(html.contains("<code>&lt;b&gt;&amp;amp;&lt;/b&gt;</code>"))

        var report = GraphFixtures.ringReport
        report.program.arguments = ["<script>alert(1)</script>"]
        report.leaks[0].backtrace = [LeakReport.Frame(function: "f<T>() & g", file: "/src/a<b>.swift", line: 3)]
        let page = HTMLReport.render(report, graphs: [])
        #expect(!page.contains("<script>"))
        #expect(page.contains("&#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"))
        #expect(page.contains("<code>f&lt;T&gt;() &amp; g</code>"))
        #expect(page.contains("title=\"/src/a&lt;b&gt;.swift\""))
    }

    @Test("each cycle shows its suspect, fingerprint, leak trace and grouped backtraces")
    func cycleSections() throws {
        let (html, _) = try Self.page(GraphFixtures.ringReport)
        #expect(html.contains("<b>⚠ Suspect: <code>DummyObject.next</code></b> — it closes the ring back to the object that started it"))
        #expect(html.contains("<p><b>Fix:</b> make the closing link weak</p>"))
        #expect(html.contains("Fingerprint <code>a1b2c3d4e5f60718</code>"))
        // The text report's section for the cycle, escaped.
        #expect(html.contains("<pre class=\"trace\">ROOT CYCLE #1: 10 objects, 320 bytes\n"))
        #expect(html.contains("holds 4 objects, 200 bytes: Payload × 3 (144 bytes), _ContiguousArrayStorage&lt;LinkedRing.Payload&gt; × 1 (56 bytes)</pre>"))
        // Ten ring objects with one backtrace are one group listing all ten addresses; its creation site is marked.
        #expect(html.contains("<h4>DummyObject × 10 <span class=\"role member\">cycle member</span> <small>320 bytes</small></h4>"))
        #expect(html.contains("<code title=\"LinkedRing.DummyObject, retain count 1\">0x5555aa001240</code>"))
        #expect(html.contains("<li class=\"site\"><code>LinkedRing.makeRing(count: Swift.Int, fixed: Swift.Bool) -&gt; ()</code>"))
        #expect(html.contains("<h4>_ContiguousArrayStorage&lt;LinkedRing.Payload&gt; <span class=\"role held\">held</span>"))
        #expect(html.contains("No creation backtrace was recorded."))
        // The table row.
        #expect(html.contains("<td class=\"types\">DummyObject × 10; holds Payload × 3, _ContiguousArrayStorage&lt;LinkedRing.Payload&gt; × 1</td>"))
    }

    @Test("a large ring lists a bounded number of addresses")
    func boundedLists() throws {
        let report = GraphFixtures.largeRing(count: 100_000)
        let html = HTMLReport.render(report, graphs: [])
        #expect(html.contains("… and 99,988 more</span>"))
        #expect(html.components(separatedBy: "<code title=\"Ring.Link").count - 1 == HTMLReport.addressLimit)
        #expect(html.contains("No graph was drawn for this cycle."))
        #expect(html.utf8.count < 100_000)
    }

    @Test("a clean report says no leaks were found and draws no cycle table")
    func clean() throws {
        let (html, graphs) = try Self.page(GraphFixtures.cleanReport)
        #expect(graphs.count == 1)
        #expect(html.contains("<p class=\"verdict good\">No leaks found.</p>"))
        #expect(!html.contains("<table class=\"cycles\">"))
    }

    /// Whether Debian's chromium is installed (`scripts/test` installs it; elsewhere the test is skipped,
    /// and says so).
    static let chromiumInstalled = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "the page renders in headless Chromium to a non-empty PNG",
        .enabled(if: chromiumInstalled, "Chromium is not installed (scripts/install-deps --tests installs it)"))
    func screenshot() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/screenshot-html")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("leakgraph-html-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let htmlFile = directory.appendingPathComponent("ring.html")
        let pngFile = directory.appendingPathComponent("ring.png")
        try Data(try Self.page(GraphFixtures.ringReport).html.utf8).write(to: htmlFile)

        let process = Process()
        process.executableURL = script
        process.arguments = [htmlFile.path, pngFile.path, "1280x1600"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let png = try Data(contentsOf: pngFile)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // A blank page compresses to a few kilobytes; the report with its graph is far larger.
        #expect(png.count > 50_000)
    }
}

@Suite("Known library leaks in the HTML page and graphs")
struct LibraryLeakRenderingTests {
    @Test("a known library leak says 'Not your code' and offers no suspect or fix; its graph marks no suspect; other cycles keep theirs")
    func notYourCode() throws {
        var report = GraphFixtures.ringReport
        let plain = try HTMLReportTests.page(report).html
        #expect(plain.contains("⚠ Suspect: <code>DummyObject.next</code>"))
        report.cycles[0].knownLibraryLeak = "known leak in a library: the ring is made by the library."
        let (html, graphs) = try HTMLReportTests.page(report)
        #expect(html.contains("<p class=\"suppressed-note\">Not your code — known leak in a library: the ring is made by the library. Reported, not failing the check.</p>"))
        #expect(!html.contains("⚠ Suspect"))
        #expect(!html.contains("Fix:"))
        #expect(html.contains("<span class=\"suppressed-tag\">library</span>"))
        #expect(html.contains("<span class=\"muted\">not your code</span>"))
        let graph = try #require(graphs.first)
        #expect(!graph.graph.text.contains("⚠ suspect"))
        #expect(graph.graph.text.contains("not your code: a known library leak"))
        let svg = try ParsedSVG(graph.svg)
        #expect(svg.groups(ofClass: "edge").allSatisfy { ParsedSVG.pathStyle(of: $0).stroke != "red" })
    }
}

@Suite("HTML report of a test run: families, the command's verdict, long names")
struct HTMLFamilyTests {
    /// Forty Room ⇄ Member cycles of one shape from forty tests, one with very long generic names, and
    /// XCTest's own known leak.
    static func report() -> LeakReport {
        var builder = GraphFixtures.Builder()
        var cycles: [LeakReport.Cycle] = []
        for cycle in 0 ..< 40 {
            let room = builder.leak("Chat.Room", cycle: cycle)
            let member = builder.leak("Chat.Member", cycle: cycle)
            builder.ref(room, member, "member")
            builder.ref(member, room, "room")
            cycles.append(.init(id: cycle, members: [room, member], holds: [], fingerprint: "00000000000000aa", tests: ["RoomTests.test\(cycle)"]))
        }
        let long = "Combine.Publishers.FlatMap<Combine.Publishers.Map<Combine.Just<Swift.Dictionary<Swift.String, Swift.Array<Chat.Message>>>, Chat.Envelope>, Chat.Source>.Inner"
        let inner = builder.leak(long, cycle: 40)
        builder.ref(inner, inner, "downstream")
        cycles.append(.init(id: 40, members: [inner], holds: [], fingerprint: "00000000000000bb", tests: []))
        let suite = builder.leak("XCTest.XCTestSuite", cycle: 41)
        let run = builder.leak("XCTest.XCTestSuiteRun", cycle: 41)
        builder.ref(suite, run, "testRun")
        builder.ref(run, suite, "test")
        cycles.append(.init(id: 41, members: [suite, run], holds: [], fingerprint: "00000000000000cc", knownLibraryLeak: "known leak in swift-corelibs-xctest: …", tests: []))
        return builder.report(cycles: cycles)
    }

    @Test("one row and one section per family, the known library leak collapsed last; the header states the command's verdict and exit status")
    func families() throws {
        let context = RenderContext(
            command: "leakgraph test --package-path Chat", verdict: "82 leaked objects …; exit status 23 (leaks found)", exitStatus: 23)
        let page = HTMLReport.render(Self.report(), graphs: [], context: context)
        #expect(page.contains("<p class=\"command\"><code>leakgraph test --package-path Chat</code></p>"))
        #expect(page.contains("<p class=\"verdict bad\">82 leaked objects …; exit status 23 (leaks found)</p>"))
        #expect(!page.contains("? · exit status"))
        #expect(page.components(separatedBy: "<section class=\"cycle\"").count - 1 == 3, "one section per family")
        #expect(page.contains("<h2>Root cycle #1 and 39 more like it"))
        #expect(page.contains("<span class=\"anchor\" id=\"cycle-40\"></span>"), "every cycle's link lands on its family")
        #expect(page.contains("<td class=\"found\">RoomTests.test0<br>RoomTests.test1<br>RoomTests.test2<br><abbr class=\"muted\" title=\"RoomTests.test0\nRoomTests.test1"))
        #expect(page.contains("RoomTests.test39\">and 37 more</abbr></td>"), "at most three tests a row, all of them on hover")
        #expect(page.contains("<td class=\"found\"><span class=\"muted\">outside any test</span></td>"))
        let library = try #require(page.range(of: "<details class=\"library\" id=\"library-leaks\">"))
        let own = try #require(page.range(of: "id=\"cycle-41\""))
        #expect(own.lowerBound < library.lowerBound, "the code's own families come first")
        #expect(page.contains("<abbr title=\"Publishers.FlatMap&lt;Combine.Publishers.Map&lt;"), "a long name is shortened, the full name on hover")
        #expect(page.contains("\">Publishers.FlatMap&lt;…&gt;.Inner</abbr>"), "shortened by writing its generic arguments <…>")
        #expect(page.contains("<tbody class=\"library-rows\">"))
    }
}
