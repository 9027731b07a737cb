import LeakGraphReport
import Testing

/// Runs fixture `name` (compiled at `optimization`) under `leakgraph run` with `leak`, then with each of
/// `cleanModes`, and checks the reports exactly: the leaking run reports `expected` and exits with 1,
/// every clean run reports nothing and exits with 0.
///
/// - Returns: The leaking run's report, for checks particular to the fixture.
@discardableResult
func checkFixture(
    _ name: String, _ optimization: Optimization, leaking expected: LeakExpectation,
    cleanModes: [String] = ["fixed"], sourceLocation: SourceLocation = #_sourceLocation
) async throws -> LeakReport? {
    let program = try await FixtureBuilds.shared.executable(name, optimization).path
    async let leakRun = LeakgraphRun.run(program, ["leak"])
    var cleanRuns: [(mode: String, run: LeakgraphRun)] = []
    for mode in cleanModes {
        cleanRuns.append((mode, try await LeakgraphRun.run(program, [mode])))
    }
    let leaking = try await leakRun
    for (mode, run) in cleanRuns {
        expectNoLeaks(run, program: program, mode: mode, sourceLocation: sourceLocation)
    }
    return expectLeaks(leaking, expected, program: program, mode: "leak", sourceLocation: sourceLocation)
}

/// Checks a run that must report exactly `expected`.
@discardableResult
func expectLeaks(
    _ run: LeakgraphRun, _ expected: LeakExpectation, program: String, mode: String,
    sourceLocation: SourceLocation = #_sourceLocation
) -> LeakReport? {
    #expect(
        !run.result.signaled && run.result.status == LeakgraphRun.leakStatus,
        "`\(mode)` must exit with \(LeakgraphRun.leakStatus): \(run.result.summary)",
        sourceLocation: sourceLocation
    )
    guard let report = run.report else {
        Issue.record("`\(mode)` wrote no JSON report: \(run.result.summary)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(report.program == LeakReport.Program(path: program, arguments: [mode], exitStatus: 0), sourceLocation: sourceLocation)
    expectConsistent(report, sourceLocation: sourceLocation)
    #expect(report.summary.leakedObjects == expected.leakedObjects, sourceLocation: sourceLocation)
    #expect(report.summary.rootCycles == expected.rootCycles, sourceLocation: sourceLocation)
    let shapes = cycleShapes(of: report)
    #expect(shapes == expected.cycles, sourceLocation: sourceLocation)
    #expect(run.text.map { !$0.isEmpty } == true, "no text summary written", sourceLocation: sourceLocation)
    return report
}

/// Checks a run that must report nothing and exit with the program's status 0.
func expectNoLeaks(_ run: LeakgraphRun, program: String, mode: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(
        !run.result.signaled && run.result.status == 0, "`\(mode)` must exit with 0: \(run.result.summary)",
        sourceLocation: sourceLocation
    )
    guard let report = run.report else {
        Issue.record("`\(mode)` wrote no JSON report: \(run.result.summary)", sourceLocation: sourceLocation)
        return
    }
    #expect(report.program == LeakReport.Program(path: program, arguments: [mode], exitStatus: 0), sourceLocation: sourceLocation)
    expectConsistent(report, sourceLocation: sourceLocation)
    #expect(report.summary.leakedObjects == 0, "`\(mode)` reported leaks: \(cycleShapes(of: report))", sourceLocation: sourceLocation)
    #expect(report.summary.rootCycles == 0, sourceLocation: sourceLocation)
    #expect(report.leaks.isEmpty && report.cycles.isEmpty && report.references.isEmpty, sourceLocation: sourceLocation)
}

/// The number of references of each ownership in a report.
func ownershipCounts(_ report: LeakReport) -> [String: Int] {
    Dictionary(report.references.map { ($0.ownership.rawValue, 1) }, uniquingKeysWith: +)
}

/// Runs fixture `name` at `optimization` in its `leak` and `fixed` modes under `leakgraph run`, both at
/// once, for tests that check more than ``checkFixture(_:_:leaking:cleanModes:sourceLocation:)`` does.
func runLeakAndFixed(_ name: String, _ optimization: Optimization) async throws -> (program: String, leaking: LeakgraphRun, fixed: LeakgraphRun) {
    let program = try await FixtureBuilds.shared.executable(name, optimization).path
    async let leakRun = LeakgraphRun.run(program, ["leak"])
    let fixed = try await LeakgraphRun.run(program, ["fixed"])
    return (program, try await leakRun, fixed)
}
