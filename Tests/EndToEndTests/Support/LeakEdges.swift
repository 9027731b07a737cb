import Foundation
import LeakGraphReport
import Testing

// Edge-level checks for the reference-kind fixtures: every reference between leaked objects as one
// readable line, `From —label→ To`, so a test states the exact labelled graph a person reads in the report.

/// A type key that is the same in every run. The walker already shows private contexts as `(private)`
/// instead of the runtime's `(unknown context at $7f…)`, whose address moves with ASLR; should such an
/// address ever come through, it is dropped here too so the comparison stays stable.
func stableTypeKey(_ leak: LeakReport.Leak) -> String {
    typeKey(leak).replacingOccurrences(
        of: #"\(unknown context at \$[0-9a-f]+\)"#, with: "(unknown context)", options: .regularExpression)
}

/// Every reference between leaked objects as `From —label→ To`, non-strong ones suffixed ` [weak]`,
/// ` [unowned]` or ` [unmanaged]`; sorted.
func edgeList(_ report: LeakReport) -> [String] {
    edgeList(report) { $0 }
}

/// Like ``edgeList(_:)`` with each label cut to the property it starts with (`blob._representation …` →
/// `blob`): for fixtures whose references run through another module's internals.
func propertyEdgeList(_ report: LeakReport) -> [String] {
    edgeList(report) { label in
        String(label.prefix { $0 != "." && $0 != " " })
    }
}

private func edgeList(_ report: LeakReport, label shown: (String) -> String) -> [String] {
    let leaks = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    return report.references.map { reference in
        let from = leaks[reference.from].map(stableTypeKey) ?? "?"
        let to = leaks[reference.to].map(stableTypeKey) ?? "?"
        let ownership = reference.ownership == .strong ? "" : " [\(reference.ownership.rawValue)]"
        return "\(from) —\(shown(reference.label))→ \(to)\(ownership)"
    }.sorted()
}

/// The root cycle shapes of a report with ``stableTypeKey(_:)`` keys.
func stableCycleShapes(of report: LeakReport) -> [CycleShape: Int] {
    let leaks = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    var shapes: [CycleShape: Int] = [:]
    for cycle in report.cycles {
        let shape = CycleShape(
            members: cycle.members.map { leaks[$0].map(stableTypeKey) ?? "(missing leak \($0))" },
            holds: cycle.holds.map { leaks[$0].map(stableTypeKey) ?? "(missing leak \($0))" })
        shapes[shape, default: 0] += 1
    }
    return shapes
}

/// Runs a reference-kind fixture like ``checkFixture(_:_:leaking:cleanModes:sourceLocation:)``, comparing
/// root cycles by ``stableTypeKey(_:)``, and checks the leaking run's references against `edges` (compared
/// sorted, through `edgeForm`: ``edgeList(_:)`` by default). `leakEnvironment` is added to the leaking
/// run's environment only.
///
/// - Returns: The leaking run's report.
@discardableResult
func checkKindFixture(
    _ name: String, _ optimization: Optimization, leaking expected: LeakExpectation, edges: [String],
    edgeForm: (LeakReport) -> [String] = edgeList, cleanModes: [String] = ["fixed"], leakEnvironment: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> LeakReport? {
    let program = try await FixtureBuilds.shared.executable(name, optimization).path
    async let leakRun = LeakgraphRun.run(program, ["leak"], environment: leakEnvironment)
    var cleanRuns: [(mode: String, run: LeakgraphRun)] = []
    for mode in cleanModes {
        cleanRuns.append((mode, try await LeakgraphRun.run(program, [mode])))
    }
    let leaking = try await leakRun
    for (mode, run) in cleanRuns {
        expectNoLeaks(run, program: program, mode: mode, sourceLocation: sourceLocation)
    }
    #expect(
        !leaking.result.signaled && leaking.result.status == LeakgraphRun.leakStatus,
        "`leak` must exit with \(LeakgraphRun.leakStatus): \(leaking.result.summary)",
        sourceLocation: sourceLocation)
    guard let report = leaking.report else {
        Issue.record("`leak` wrote no JSON report: \(leaking.result.summary)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(
        report.program == LeakReport.Program(path: program, arguments: ["leak"], exitStatus: 0),
        sourceLocation: sourceLocation)
    expectConsistent(report, sourceLocation: sourceLocation)
    #expect(report.summary.leakedObjects == expected.leakedObjects, sourceLocation: sourceLocation)
    #expect(report.summary.rootCycles == expected.rootCycles, sourceLocation: sourceLocation)
    #expect(stableCycleShapes(of: report) == expected.cycles, sourceLocation: sourceLocation)
    #expect(edgeForm(report) == edges.sorted(), sourceLocation: sourceLocation)
    #expect(leaking.text.map { !$0.isEmpty } == true, "no text summary written", sourceLocation: sourceLocation)
    return report
}
