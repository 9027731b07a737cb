import Foundation
import LeakGraphReport
import Testing

// Allocation counts of real programs, in debug and release: Tests/Fixtures/AllocationCounts makes
// exactly 1,000 widgets (one kept), calls 500 adders (a closure context each, none kept) and grows an
// array by appending 10,000 integers (a storage object per capacity change, the last kept). Counted
// in-process with LeakChecker.countingAllocations, and as a whole program with `leakgraph run
// --allocations`.

@Suite("Allocation counts of fixture programs", .timeLimit(.minutes(10)))
struct AllocationFixtureTests {
    /// The fixture, linked with LeakGraph.
    static func program(_ optimization: Optimization) async throws -> URL {
        try await InProcessBuilds.shared.executable("AllocationCounts", optimization, harness: false)
    }

    @Test("in-process: each shape counted exactly, the same in five runs", arguments: Optimization.allCases)
    func inProcess(_ optimization: Optimization) async throws {
        let program = try await Self.program(optimization)
        var outputs: Set<String> = []
        for _ in 1...5 {
            let result = try await runProcess(program, arguments: ["inprocess"], environment: cleanEnvironment())
            #expect(result.status == 0 && !result.signaled, "\(result.summary)")
            let lines = result.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(result.summary)")
            #expect(lines.first == "widgets made=1000 alive=1 total=1000")
            #expect(lines.dropFirst().first == "adders made=500 alive=0 total=500")
            let array = try #require(lines.last)
            let growths = try #require(array.split(separator: "=").last.flatMap { Int($0) })
            #expect(growths > 5)
            #expect(array == "array made=\(growths) alive=1 total=\(growths) growths=\(growths)")
            outputs.insert(result.standardOutput)
        }
        #expect(outputs.count == 1, "\(outputs)")
    }

    @Test("leakgraph run --allocations: every type and site, with made, bytes and alive at exit, in the text and JSON", arguments: Optimization.allCases)
    func wholeProgram(_ optimization: Optimization) async throws {
        let program = try await Self.program(optimization)
        let run = try await LeakgraphRun.run(program.path, ["profile"], options: ["--allocations"])
        #expect(run.result.status == 0, "\(run.result.summary)")
        let growths = try #require(
            run.result.standardOutput.split(separator: "\n").first { $0.hasPrefix("growths=") }.flatMap { Int($0.dropFirst(8)) })
        let profile = try #require(run.report?.allocations, "\(run.result.summary)")
        let widgets = profile.sites.filter { $0.type == "Fixture.Widget" }
        #expect(widgets.count == 1, "\(widgets)")
        #expect(widgets.first?.objects == 1000)
        #expect(widgets.first?.bytes == 24_000)
        #expect(widgets.first?.aliveObjects == 1)
        #expect(widgets.first?.function?.hasPrefix("Fixture.makeWidgets(") == true, "\(widgets)")
        #expect(widgets.first?.line == 29)
        let adders = profile.sites.filter { $0.function?.hasPrefix("Fixture.makeAdder(") == true }
        #expect(adders.map(\.type) == ["(closure context, 2 captures)"])
        #expect(adders.first?.objects == 500)
        #expect(adders.first?.aliveObjects == 0)
        // The only `[Int]` the program makes. In -O the storage is made in the standard library's
        // `_consumeAndCreateNew`, specialized into the program and without a frame of its own for
        // `growArray`: its site is that function (a short release stack, as in leak reports).
        let storage = try #require(profile.types.first { $0.type == "Swift._ContiguousArrayStorage<Swift.Int>" })
        #expect(storage.objects == growths, "\(profile.sites)")
        #expect(storage.aliveObjects == 1)
        #expect(profile.objects >= 1000 + 500 + growths)
        #expect(profile.aliveObjects >= 2)

        let text = try #require(run.text)
        #expect(text.contains("ALLOCATIONS: "), "\(text)")
        #expect(text.contains("Widget at main.swift:29 in makeWidgets(_:)"), "\(text)")
        #expect(text.contains("(closure context, 2 captures) at main.swift:36 in makeAdder(_:_:)"), "\(text)")
        #expect(text.contains("ALLOCATIONS BY TYPE"))
    }

    @Test("leakgraph diff of two profiles names the site that allocates more; the HTML lists every site")
    func diffAndHTML() async throws {
        let program = try await Self.program(.debug)
        let folder = try Scratch.directory("allocation-diff")
        let old = folder.appendingPathComponent("old.json")
        let new = folder.appendingPathComponent("new.json")
        let html = folder.appendingPathComponent("new.html")
        let leakgraph = try BuildProducts.leakgraph()
        let first = try await runProcess(
            leakgraph, arguments: ["run", "--allocations", "--json", old.path, "--", program.path, "profile"], environment: cleanEnvironment())
        #expect(first.status == 0, "\(first.summary)")
        let second = try await runProcess(
            leakgraph, arguments: ["run", "--allocations", "--json", new.path, "--html", html.path, "--", program.path, "profile"],
            environment: cleanEnvironment(adding: ["WIDGETS": "1500"]))
        #expect(second.status == 0, "\(second.summary)")
        let diff = try await runProcess(leakgraph, arguments: ["diff", old.path, new.path], environment: cleanEnvironment())
        #expect(diff.status == 0, "more allocations are no leak: \(diff.summary)")
        #expect(diff.standardOutput.contains("SITES THAT ALLOCATE MORE\n  +500 (+12,000 bytes)  Widget at main.swift:29 in makeWidgets(_:)  (1,000 → 1,500)"), "\(diff.standardOutput)")
        #expect(!diff.standardOutput.contains("SITES THAT ALLOCATE LESS"), "\(diff.standardOutput)")
        let page = try String(contentsOf: html, encoding: .utf8)
        #expect(page.contains("<section id=\"allocations\">"))
        #expect(page.contains("<td class=\"num\">1,500</td><td class=\"num\">36,000</td><td class=\"num\">1</td><td style=\"overflow-wrap:anywhere\"><code>Fixture.Widget</code></td>"), "\(page)")
        try? FileManager.default.removeItem(at: folder)
    }
}
