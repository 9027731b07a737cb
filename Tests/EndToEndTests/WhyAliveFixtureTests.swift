import LeakGraphRender
import LeakGraphReport
import Testing

// "Why is it still alive" (issue 13): objects reachable from a global that should be gone, explained by
// `leakgraph run --why TYPE` with the global's name and every reference to them, compiled at -Onone and
// -O and run end to end.

@Suite("leakgraph run --why", .timeLimit(.minutes(10)))
struct WhyAliveFixtureTests {
    @Test("objects kept by a static observer list and a global array: the global named, each step labelled; fixed: none alive",
          arguments: Optimization.allCases)
    func whyAlive(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("WhyAlive", optimization).path
        let options = ["--why", "ProfileViewController", "--why", "Fixture.SearchController"]
        async let leaking = LeakgraphRun.run(program, ["leak"], options: options)
        let fixed = try await LeakgraphRun.run(program, ["fixed"], options: options)
        let leak = try await leaking
        #expect(leak.result.status == 0, "reachable objects are no leak: \(leak.result.summary)")
        let report = try #require(leak.report, "\(leak.result.summary)")
        #expect(report.cycles.isEmpty)
        let why = try #require(report.why)
        #expect(why.map(\.type) == ["ProfileViewController", "Fixture.SearchController"])
        #expect(why.map(\.matched) == [1, 1])
        #expect(why.map(\.leaked) == [0, 0])
        let profile = try #require(why[0].chains.first)
        #expect(profile.holder.kind == .global)
        #expect(profile.holder.name == "static Fixture.NotificationCentre.shared : Fixture.NotificationCentre")
        #expect(profile.links.map(\.type) == [
            "Fixture.NotificationCentre", "Swift._ContiguousArrayStorage<Swift.AnyObject>", "Fixture.Observer",
            "Fixture.ProfileViewController",
        ])
        #expect(profile.summaryLine == "static NotificationCentre.shared → observers[0] → handler (closure) → ProfileViewController")
        #expect(report.retainers(of: "ProfileViewController") == [profile])
        #expect(report.retainers(of: "Fixture.ProfileViewController") == [profile])
        let search = try #require(why[1].chains.first)
        #expect(search.holder.name == "Fixture.openControllers : Swift.Array<Fixture.SearchController>")
        #expect(search.summaryLine == "openControllers[0] → SearchController")
        #expect(leak.text?.contains("WHY IS ProfileViewController ALIVE? — 1 live object: 1 held by a root") == true, "\(leak.text ?? "")")
        #expect(leak.text?.contains("held by global `static Fixture.NotificationCentre.shared") == true)

        #expect(fixed.result.status == 0)
        let fixedWhy = try #require(fixed.report?.why)
        #expect(fixedWhy.map(\.matched) == [0, 0])
        #expect(fixed.text?.contains("WHY IS ProfileViewController ALIVE? — no live object of this type.") == true)
    }

    @Test("--why with an empty type name is a usage error (exit 2), the program not run")
    func emptyType() async throws {
        let program = try await FixtureBuilds.shared.executable("WhyAlive", .debug).path
        let run = try await LeakgraphRun.run(program, ["leak"], options: ["--why", " "])
        #expect(run.result.status == 2)
        #expect(run.report == nil)
        #expect(run.result.standardError.contains("--why needs a type name"))
    }
}
