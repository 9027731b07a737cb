import Foundation
import LeakGraphReport
import Testing

// Samples/LinkedRing, the ten-DummyObject ring of the Mac & i article, built as the standalone package
// it is and checked under `leakgraph run`.

@Suite("Samples/LinkedRing", .timeLimit(.minutes(10)))
struct LinkedRingSampleTests {
    @Test("the ring leaks ten DummyObjects in one root cycle; --fixed leaks nothing", arguments: Optimization.allCases)
    func linkedRing(_ optimization: Optimization) async throws {
        let package = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Samples/LinkedRing")
        let scratch = try Scratch.directory("linked-ring-\(optimization.rawValue)")
        let configuration = optimization == .debug ? "debug" : "release"
        let build = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                "swift", "build", "--package-path", package.path, "--scratch-path", scratch.path, "-c", configuration,
            ],
            environment: cleanEnvironment()
        )
        removeBuildLocks(of: scratch)
        try #require(build.status == 0, "the sample does not build: \(build.summary)")
        let program = scratch.appendingPathComponent(configuration).appendingPathComponent("LinkedRing").path

        let leaking = try await LeakgraphRun.run(program, [])
        #expect(leaking.result.status == LeakgraphRun.leakStatus, "\(leaking.result.summary)")
        let report = try #require(leaking.report, "no report: \(leaking.result.summary)")
        expectConsistent(report)
        #expect(report.program == LeakReport.Program(path: program, arguments: [], exitStatus: 0))
        #expect(cycleShapes(of: report) == [CycleShape(counting: ["LinkedRing.DummyObject": 10]): 1])
        #expect(report.references.filter { $0.ownership == .strong }.map(\.label) == Array(repeating: "next", count: 10))
        #expect(leaking.result.standardOutput.contains("0 of them were freed"))

        let fixed = try await LeakgraphRun.run(program, ["--fixed"])
        #expect(fixed.result.status == 0, "\(fixed.result.summary)")
        #expect(fixed.report?.summary.leakedObjects == 0)
        #expect(fixed.report?.cycles.isEmpty == true)
        #expect(fixed.result.standardOutput.contains("10 of them were freed"))
    }
}
