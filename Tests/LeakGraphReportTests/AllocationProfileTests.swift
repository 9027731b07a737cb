import Foundation
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport
import Testing

/// Hand-made allocation profiles.
enum AllocationFixtures {
    static func site(
        _ type: String, _ function: String?, _ line: Int?, objects: Int, bytes: Int, alive: Int = 0, file: String? = "/src/App/Widgets.swift"
    ) -> AllocationProfile.Site {
        AllocationProfile.Site(
            type: type, function: function, file: function == nil ? nil : file, line: line, objects: objects, bytes: bytes,
            aliveObjects: alive, aliveBytes: alive * (objects == 0 ? 0 : bytes / objects))
    }

    static let profile = AllocationProfile(
        sites: [
            site("App.Widget", "App.makeWidgets(Swift.Int) -> [App.Widget]", 9, objects: 100, bytes: 2_400, alive: 2),
            site("(closure context, 2 captures)", "closure #1 () -> () in App.Feed.load(from: Swift.String) -> ()", 30, objects: 5, bytes: 160),
            site("Swift._ContiguousArrayStorage<Swift.AnyObject>", "App.makeWidgets(Swift.Int) -> [App.Widget]", 7, objects: 1, bytes: 832, alive: 1),
            site("App.Widget", nil, nil, objects: 3, bytes: 72),
            site("App.Widget", "App.makeWidgets(Swift.Int) -> [App.Widget]", 9, objects: 10, bytes: 240),
        ],
        excludedObjects: 7, excludedBytes: 300)

    /// A report with per-test counts (one with its run).
    static var testReport: LeakReport {
        var report = ReportFixtures.cleanReport
        report.testAllocations = [
            TestAllocations(test: "A/t\"1\"", run: "XCTest", allocations: profile),
            TestAllocations(test: "B/t2()", allocations: .empty),
        ]
        return report
    }

    /// A report carrying ``profile``, with an escaped name.
    static var report: LeakReport {
        var report = ReportFixtures.cleanReport
        report.allocations = AllocationProfile(
            sites: profile.sites + [site("App.\"Quoted\"\\Type", "App.é()", 1, objects: 1, bytes: 16)],
            excludedObjects: profile.excludedObjects, excludedBytes: profile.excludedBytes)
        return report
    }
}

@Suite("Allocation profiles")
struct AllocationProfileTests {
    @Test("rows of one type and site are summed; sites sorted by objects; totals and types follow")
    func merging() {
        let profile = AllocationFixtures.profile
        #expect(profile.sites.count == 4)
        #expect(profile.sites.first?.objects == 110)
        #expect(profile.sites.first?.aliveObjects == 2)
        #expect(profile.objects == 119)
        #expect(profile.bytes == 3_704)
        #expect(profile.aliveObjects == 3)
        #expect(profile.types.map(\.type) == ["App.Widget", "(closure context, 2 captures)", "Swift._ContiguousArrayStorage<Swift.AnyObject>"])
        #expect(profile.types.first?.objects == 113)
        #expect(profile.objects(ofType: "Widget") == 113)
        #expect(profile.objects(ofType: "App.Widget") == 113)
        #expect(profile.objects(ofType: "Gadget") == 0)
        #expect(profile.aliveObjects(ofType: "_ContiguousArrayStorage<Swift.AnyObject>") == 1)
    }

    @Test("a site reads as the user writes it: short type, file name, line, short function")
    func siteText() {
        let sites = AllocationFixtures.profile.sites
        #expect(sites[0].text == "Widget × 110 at Widgets.swift:9 in makeWidgets(_:)")
        #expect(sites[1].siteText == "Widgets.swift:30 in closure #1 in Feed.load(from:)")
        #expect(sites.first { $0.function == nil }?.siteText == "(no creation stack)")
    }

    @Test("short function names", arguments: [
        ("App.makeWidgets(Swift.Int) -> [App.Widget]", "makeWidgets(_:)"),
        ("App.Widgets.make(count: Swift.Int, _: Swift.String) -> ()", "Widgets.make(count:_:)"),
        ("App.Feed.init() -> App.Feed", "Feed.init()"),
        ("closure #2 (Swift.Int) -> Swift.Bool in App.Feed.load() -> ()", "closure #2 in Feed.load()"),
        ("implicit closure #1 () -> () in App.main()", "implicit closure #1 in main()"),
        ("(1) suspend resume partial function for closure #1 () async -> () in App.run() async -> ()", "closure #1 in run()"),
        ("generic specialization <Swift.Int> of App.Box.fill<A>(A) -> ()", "Box.fill(_:)"),
        ("App.Store.items.getter : [Swift.Int]", "Store.items.getter"),
        ("main", "main"),
        ("static Inbox.ThumbnailRenderer.render(Swift.Int) -> Swift.Array<Inbox.Thumbnail>", "ThumbnailRenderer.render(_:)"),
        ("lg_preload_at_exit", "lg_preload_at_exit"),
        ("App.f(_: (Swift.Int, Swift.Int) -> Swift.Bool) -> ()", "f(_:)"),
    ])
    func shortFunctions(_ pair: (String, String)) {
        #expect(AllocationProfile.shortFunction(pair.0) == pair.1)
    }

    @Test("the text: totals, what was not counted, the top sites and every type, with a limit")
    func text() {
        let text = AllocationFixtures.profile.text(sites: 2)
        #expect(text.hasPrefix("ALLOCATIONS: 119 objects made (3,704 bytes); 3 alive at exit (880 bytes)\n"))
        #expect(text.contains("(not counted: 7 objects the test libraries made for themselves, 300 bytes)"))
        #expect(text.contains("          110         2,640         2  Widget at Widgets.swift:9 in makeWidgets(_:)\n"))
        #expect(text.contains("  … and 2 more sites (every one in the JSON and HTML reports)"))
        #expect(text.contains("ALLOCATIONS BY TYPE"))
        #expect(text.contains("  … and 1 more type"))
    }

    @Test("a budget names each limit passed, the top types and sites, what stayed alive; within it, nothing")
    func budget() throws {
        let profile = AllocationFixtures.profile
        #expect(AllocationBudget(objects: 119).failureMessage(for: profile) == nil)
        #expect(AllocationBudget(objectsOfType: ["Widget": 113], aliveObjects: 3).failureMessage(for: profile) == nil)
        let message = try #require(AllocationBudget(objects: 100, objectsOfType: ["Widget": 50], aliveObjects: 0).failureMessage(for: profile))
        let lines = message.split(separator: "\n").map(String.init)
        #expect(lines[0] == "119 objects allocated (3,704 bytes), over the budget of at most 100 (19 more).")
        #expect(lines[1] == "113 Widget objects allocated, over the budget of at most 50 (63 more).")
        #expect(lines[2] == "3 objects still alive when the body returned, over the budget of at most 0 (3 more).")
        #expect(lines.contains("  Widget × 113 (2,712 bytes)"))
        #expect(lines.contains("  Widget × 110 at Widgets.swift:9 in makeWidgets(_:)"))
        #expect(lines.contains("Still alive when the body returned:"))
        #expect(lines.contains("  _ContiguousArrayStorage<Swift.AnyObject> × 1 at Widgets.swift:7 in makeWidgets(_:)"))
        #expect(!message.contains("Not counted"), "the test libraries' own count varies from run to run: not in the message")
    }

    @Test("the profile survives JSON and combining adds profiles up")
    func codableAndCombining() throws {
        let report = AllocationFixtures.report
        let decoded = try LeakReport.decode(from: report.jsonData(prettyPrinted: false))
        #expect(decoded.allocations == report.allocations)
        let combined = LeakReport(
            combining: [.init(name: "a", report: report), .init(name: "b", report: report)], program: report.program)
        #expect(combined.allocations?.objects == 2 * (report.allocations?.objects ?? 0))
        #expect(combined.allocations?.sites.count == report.allocations?.sites.count)
        #expect(LeakReport(combining: [.init(name: "a", report: ReportFixtures.cleanReport)], program: report.program).allocations == nil)
    }

    @Test("diff: sites that allocate more first, then less; types; totals in the text")
    func diff() throws {
        let old = AllocationFixtures.profile
        var new = old
        new.sites[0].objects += 50
        new.sites[0].bytes += 1_200
        new.sites[1].objects -= 5
        new.sites[1].bytes -= 160
        new.sites.append(AllocationFixtures.site("App.Cache", "App.Cache.init() -> App.Cache", 3, objects: 1, bytes: 64, alive: 1))
        new = AllocationProfile(sites: new.sites)
        let diff = AllocationDiff(old: old, new: new)
        #expect(diff.grownSites.map(\.type) == ["App.Widget", "App.Cache"])
        #expect(diff.sites.last?.type == "(closure context, 2 captures)")
        #expect(diff.types.first?.type == "App.Widget")
        let text = diff.text
        #expect(text.hasPrefix("ALLOCATIONS: 119 → 165 objects (+46), 3,704 → 4,808 bytes (+1,104); alive at exit 3 → 4\n"))
        #expect(text.contains("SITES THAT ALLOCATE MORE\n  +50 (+1,200 bytes)  Widget at Widgets.swift:9 in makeWidgets(_:)  (110 → 160)\n  +1 (+64 bytes)  Cache at Widgets.swift:3 in Cache.init()  (0 → 1)"))
        #expect(text.contains("SITES THAT ALLOCATE LESS\n  -5 (-160 bytes)  (closure context, 2 captures) at Widgets.swift:30 in closure #1 in Feed.load(from:)  (5 → 0)"))
        var oldReport = ReportFixtures.cleanReport
        oldReport.allocations = old
        var newReport = ReportFixtures.cleanReport
        newReport.allocations = new
        let reportDiff = ReportDiff(old: oldReport, new: newReport)
        #expect(reportDiff.allocations == diff)
        #expect(reportDiff.newLeaks.isEmpty, "allocations never make a regression of leaks")
        #expect(reportDiff.text.contains("SITES THAT ALLOCATE MORE"))
        #expect(ReportDiff(old: ReportFixtures.cleanReport, new: newReport).allocations == nil)
    }
}
