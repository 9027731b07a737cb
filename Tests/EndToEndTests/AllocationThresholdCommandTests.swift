import Foundation
import LeakGraphReport
import Testing

// `leakgraph test --allocations` and its thresholds file on whole packages: the usage and file errors,
// checked before anything is built.

@Suite("leakgraph test --allocations", .timeLimit(.minutes(10)))
struct AllocationThresholdCommandTests {
    @Test("a missing, foreign or newer thresholds file, and a tolerance without a file: exit 2 with one message, nothing built")
    func badInput() async throws {
        let folder = try Scratch.directory("thresholds-errors")
        let package = folder.appendingPathComponent("pkg")
        let missing = folder.appendingPathComponent("missing.json")
        let run = try await LeakgraphTest.run(
            package: package, scratch: folder.appendingPathComponent("build"), options: ["--allocation-thresholds", missing.path])
        #expect(run.result.status == 2)
        #expect(run.toolMessages == [
            "leakgraph: cannot read the allocation thresholds \(missing.path): no such file (record it with --write-allocation-thresholds)"
        ])

        let foreign = folder.appendingPathComponent("foreign.json")
        try #"{"tests": []}"#.write(to: foreign, atomically: true, encoding: .utf8)
        let notThresholds = try await LeakgraphTest.run(
            package: package, scratch: folder.appendingPathComponent("build"), options: ["--allocation-thresholds", foreign.path])
        #expect(notThresholds.result.status == 2)
        #expect(notThresholds.toolMessages == [
            "leakgraph: cannot read the allocation thresholds \(foreign.path): it is not an allocation thresholds file "
                + "(no \"leakgraphAllocationThresholds\" version)"
        ])

        let newer = folder.appendingPathComponent("newer.json")
        try #"{"leakgraphAllocationThresholds": 7, "tests": []}"#.write(to: newer, atomically: true, encoding: .utf8)
        let tooNew = try await LeakgraphTest.run(
            package: package, scratch: folder.appendingPathComponent("build"), options: ["--allocation-thresholds", newer.path])
        #expect(tooNew.result.status == 2)
        #expect(tooNew.toolMessages.first?.hasSuffix("it has version 7; this leakgraph reads up to version 1") == true)

        let tolerance = try await LeakgraphTest.run(
            package: package, scratch: folder.appendingPathComponent("build"), options: ["--allocation-tolerance", "5"])
        #expect(tolerance.result.status == 2)
        #expect(tolerance.result.standardError.contains("--allocation-tolerance needs --allocation-thresholds or --write-allocation-thresholds"))

        let negative = try await LeakgraphTest.run(
            package: package, scratch: folder.appendingPathComponent("build"),
            options: ["--allocation-tolerance=-1", "--write-allocation-thresholds", folder.appendingPathComponent("t.json").path])
        #expect(negative.result.status == 2)
        #expect(negative.result.standardError.contains("--allocation-tolerance must be a percentage of 0 or more, not -1.0"))
    }
}
