import LeakGraphAnalysis
import LeakGraphModel
@testable import LeakGraphRender
@testable import LeakGraphReport
import Testing

/// A report of a test run: the same Room ⇄ Member leak made by two tests, a Screen ⇄ Presenter leak made
/// outside any test, and XCTest's own known leak.
func familyReport() -> LeakReport {
    var g = LeakedGraph()
    var rooms: [Int] = []
    for _ in 0..<2 {
        let room = g.object("Chat.Room", size: 48), member = g.object("Chat.Member")
        g.ref(room, member, "member")
        g.ref(member, room, "room")
        rooms.append(room)
    }
    let screen = g.object("App.Screen"), presenter = g.object("App.Presenter")
    g.ref(screen, presenter, "presenter")
    g.ref(presenter, screen, "view")
    let suite = g.object("XCTest.XCTestSuite"), run = g.object("XCTest.XCTestSuiteRun")
    g.ref(suite, run, "testRun")
    g.ref(run, suite, "test")
    var report = g.report()
    let firstRooms = report.leaks.first { $0.type == "Chat.Room" }?.cycle
    report.attributeTests { leak in
        switch leak.type {
        case "Chat.Room", "Chat.Member": leak.cycle == firstRooms ? "RoomTests.testJoin" : "RoomTests.testRejoin"
        default: nil
        }
    }
    for index in report.cycles.indices { report.cycles[index].run = "XCTest" }
    return report
}

@Suite("Leak families and known library leaks in the text")
struct FamilyTextTests {
    @Test("two tests that make the same leak give one section naming both; the library leak is one line, last")
    func familiesAndLibraryLeaks() throws {
        let report = familyReport()
        #expect(report.cycles.contains { $0.knownLibraryLeak != nil })
        let families = report.families
        #expect(families.map(\.cycles.count) == [2, 1, 1])
        #expect(families.map(\.standing) == [.own, .own, .knownLibraryLeak])

        let text = TextReport.render(report)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Process Shapes: 6 leaks of your code for 224 total leaked bytes, in 2 leak families (3 root cycles).", "\(text)")
        #expect(lines[1].hasPrefix("Process Shapes: not your code: 1 known library leak, 2 objects, 64 bytes"), "\(text)")
        let rooms = try #require(lines.firstIndex { $0.hasPrefix("ROOT CYCLE #") && $0.contains("more like it") }, "\(text)")
        #expect(lines[rooms].contains("and 1 more like it (#"), "\(lines[rooms])")
        #expect(lines[rooms].contains(": 2 root cycles, 4 objects, 160 bytes in all (2 objects, 80 bytes in #"), "\(lines[rooms])")
        #expect(lines[rooms + 1] == "   Found in RoomTests.testJoin and RoomTests.testRejoin (XCTest run)")
        #expect(lines.contains("   Made outside any test (XCTest run)"))
        #expect(text.components(separatedBy: "ROOT CYCLE #").count - 1 == 2, "one section per family of the code's own")
        let library = try #require(lines.firstIndex { $0.hasPrefix("KNOWN LIBRARY LEAKS") })
        #expect(library > rooms && lines[library + 1].contains("XCTestSuite.testRun → XCTestSuiteRun.test → XCTestSuite — known leak in swift-corelibs-xctest"))

        let expanded = TextReport.render(report, options: .init(expand: true))
        #expect(expanded.components(separatedBy: "ROOT CYCLE #").count - 1 == 4, "every cycle in full")
        #expect(!expanded.contains("KNOWN LIBRARY LEAKS"))
        #expect(expanded.contains("   Not your code — known leak in swift-corelibs-xctest"))
    }

    @Test("a cycle's tests: one, several, none (outside any test), or not observed")
    func foundIn() {
        var cycle = LeakReport.Cycle(id: 0, members: [], holds: [])
        #expect(ReportNaming.foundIn(cycle) == nil)
        cycle.run = "Swift Testing"
        #expect(ReportNaming.foundIn(cycle) == "Found in the Swift Testing run")
        cycle.tests = []
        #expect(ReportNaming.foundIn(cycle) == "Made outside any test (Swift Testing run)")
        cycle.tests = ["Suite.a()", "Suite.b()", "c()"]
        #expect(ReportNaming.foundIn(cycle) == "Found in Suite.a(), Suite.b() and c() (Swift Testing run)")
        var other = cycle
        other.run = "XCTest"
        other.tests = ["T.testX"]
        var outside = cycle
        outside.tests = []
        #expect(
            ReportNaming.foundIn([cycle, other, outside])
                == "Found in Suite.a(), Suite.b() and c() (Swift Testing run), T.testX (XCTest run) and outside any test")
    }
}

@Suite("Test names in a report")
struct TestNameTests {
    @Test("a recorded test name loses its module, unless two tests of the report would then read the same")
    func modules() {
        var g = LeakedGraph()
        for _ in 0..<3 {
            let a = g.object("App.A"), b = g.object("App.B")
            g.ref(a, b, "b")
            g.ref(b, a, "a")
        }
        var report = g.report()
        let cycles = report.cycles.map(\.id)
        report.attributeTests { leak in
            switch cycles.firstIndex(of: leak.cycle ?? -1) {
            case 0: "HummingbirdTests\u{1F}RouterTests.testCaseInsensitive()"
            case 1: "HummingbirdRouterTests\u{1F}RouterTests.testCaseInsensitive()"
            default: "HummingbirdTests\u{1F}MetricsTests.testCounter2()"
            }
        }
        #expect(report.cycles.map(\.tests) == [
            ["HummingbirdTests.RouterTests.testCaseInsensitive()"],
            ["HummingbirdRouterTests.RouterTests.testCaseInsensitive()"],
            ["MetricsTests.testCounter2()"],
        ])
        #expect(LeakReport.testNames(for: ["RoomTests.testJoin"]) == ["RoomTests.testJoin": "RoomTests.testJoin"], "a name without a module stays")
    }
}

@Suite("Walk diagnostics in the text")
struct DiagnosticTextTests {
    static let library = [
        WalkDiagnostic(typeName: "Foundation.NSURL", reason: "retained from a CoreFoundation object", objectCount: 4),
        WalkDiagnostic(typeName: "Foundation.DateFormatter", reason: "_lock: field type is not Copyable", objectCount: 1),
        WalkDiagnostic(
            typeName: "(closure context, 2 captures)", reason: "generic capture not read", objectCount: 3,
            site: "XCTestCase.swift:12 in closure #1 () -> () in XCTest.XCTestCase.invokeTest() -> ()"),
        WalkDiagnostic(typeName: "Dispatch.DispatchSource", reason: "handlers not read", objectCount: 2),
    ]

    @Test("diagnostics about library internals alone are one line")
    func libraryOnly() {
        var report = ReportFixtures.cleanReport
        report.diagnostics = Self.library
        let text = TextReport.render(report)
        let diagnostics = text.split(separator: "\n").drop { !$0.hasPrefix("Not read exactly") }
        #expect(
            Array(diagnostics) == [
                "Not read exactly: 10 objects of Foundation, Dispatch and XCTest internals could not be read; what they reach counts as held (--verbose lists them)."
            ], "\(text)")
        let verbose = TextReport.render(report, options: .init(verbose: true))
        #expect(verbose.contains("   Foundation.NSURL: retained from a CoreFoundation object (4 objects)"))
        #expect(verbose.split(separator: "\n").drop { !$0.hasPrefix("Not read exactly") }.count == 5)
    }

    @Test("the program's own diagnostics are listed; library internals are counted after them")
    func ownAndLibrary() {
        var report = ReportFixtures.cleanReport
        let own = [
            WalkDiagnostic(typeName: "App.Cache", reason: "field type is not Copyable", objectCount: 2),
            WalkDiagnostic(typeName: "Swift._ContiguousArrayStorage<App.Entry>", reason: "tail not read", objectCount: 1),
            WalkDiagnostic(typeName: "(closure context, 1 capture)", reason: "generic capture not read", objectCount: 5, site: "main.swift:3 in App.run() -> ()"),
        ]
        report.diagnostics = own + Self.library
        let lines = Array(TextReport.render(report).split(separator: "\n").map(String.init).drop { !$0.hasPrefix("Not read exactly") })
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[0].hasPrefix("Not read exactly: references of 8 objects could not be read"))
        #expect(lines[1].hasPrefix("   (closure context, 1 capture): "))  // the most objects first
        #expect(lines[2].hasPrefix("   App.Cache: "))
        #expect(lines[3].hasPrefix("   Swift._ContiguousArrayStorage<App.Entry>: "))
        #expect(lines[4] == "   and 10 objects of Foundation, Dispatch and XCTest internals, which count as held too (--verbose lists them)")
    }

    @Test("the program's diagnostics of one kind (one reason, types that differ in generic arguments) are one line; --verbose lists each")
    func ownByKind() {
        var report = ReportFixtures.cleanReport
        let reason = "reduce: field type is not Copyable: reflection gives no layout for it"
        report.diagnostics = [
            WalkDiagnostic(typeName: "Lib.Last<Lib.Subject<Swift.Int>>.(private).Inner<App.Sink<Swift.Int>>", reason: reason, objectCount: 3, site: "Last.swift:113 in Lib.Last.receive()"),
            WalkDiagnostic(typeName: "(closure context, 2 captures)", reason: "generic closure context with unsupported metadata sources", objectCount: 2, site: "A.swift:3 in App.a()"),
            WalkDiagnostic(typeName: "Lib.Last<App.Publisher>.(private).Inner<App.Sink<(Swift.Int) -> ()>>", reason: reason, objectCount: 1),
            WalkDiagnostic(typeName: "(closure context, 2 captures)", reason: "generic closure context with unsupported metadata sources", objectCount: 2, site: "B.swift:9 in App.b()"),
            WalkDiagnostic(typeName: "Lib.Last<App.Publisher>.(private).Inner<App.Sink<Swift.Int>>", reason: "another reason", objectCount: 1),
        ]
        let lines = Array(TextReport.render(report).split(separator: "\n").map(String.init).drop { !$0.hasPrefix("Not read exactly") })
        #expect(lines == [
            "Not read exactly: references of 9 objects could not be read; the objects they reach were treated as held (a leak there can be missed):",
            "   Lib.Last<…>.(private).Inner<…>: \(reason) (4 objects of 2 types; one made at Last.swift:113 in Lib.Last.receive())",
            "   (closure context, 2 captures): generic closure context with unsupported metadata sources (4 objects; one made at A.swift:3 in App.a())",
            "   Lib.Last<App.Publisher>.(private).Inner<App.Sink<Swift.Int>>: another reason (1 object)",
        ], "\(lines)")
        let verbose = TextReport.render(report, options: .init(verbose: true))
        #expect(verbose.split(separator: "\n").drop { !$0.hasPrefix("Not read exactly") }.count == 6)
        #expect(ReportNaming.genericArgumentsElided("Swift._ContiguousArrayStorage<((A.B, Swift.UInt), () -> ())>.Inner") == "Swift._ContiguousArrayStorage<…>.Inner")
        #expect(ReportNaming.genericArgumentsElided("(closure context, 1 capture)") == "(closure context, 1 capture)")
    }

    @Test("which code a diagnostic is about: by module, of its type or of the function that made it")
    func classification() {
        #expect(ReportNaming.modules(inTypeName: "Swift._ContiguousArrayStorage<OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>>") == ["Swift", "OpenCombine", "Swift", "Swift"])
        #expect(ReportNaming.modules(inTypeName: "App.(unknown context at $1234).Secret") == ["App"])
        #expect(ReportNaming.module(ofFunction: "closure #1 (Swift.Int) -> () in Foundation.Timer.init(fire: Foundation.Date) -> Foundation.Timer") == "Foundation")
        #expect(ReportNaming.module(ofFunction: "static App.Store.make() -> App.Store") == "App")
        #expect(ReportNaming.module(ofFunction: "_dispatch_continuation_pop") == nil)
        for diagnostic in Self.library {
            #expect(ReportNaming.library(of: diagnostic) != nil, "\(diagnostic.typeName)")
        }
        #expect(ReportNaming.library(of: WalkDiagnostic(typeName: "FoundationEssentials.LockedState<(App.Model)>._Buffer", reason: "", objectCount: 1)) == nil)
        #expect(ReportNaming.library(of: WalkDiagnostic(typeName: "(closure context, 1 capture)", reason: "", objectCount: 1)) == nil)
        #expect(ReportNaming.library(of: WalkDiagnostic(typeName: "(tests)", reason: "", objectCount: 0)) == nil)
    }
}
