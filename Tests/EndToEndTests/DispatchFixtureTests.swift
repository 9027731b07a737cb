import LeakGraphReport
import Testing

// A `DispatchWorkItem` stored in its owner whose block captures the owner
// (Tests/Fixtures/DispatchWorkItems), at -Onone and -O, under `leakgraph run`. The walk reads the Swift
// closure inside libdispatch's block only while the work item is the block's one holder.

@Suite("Reference kinds: dispatch work items", .timeLimit(.minutes(10)))
struct DispatchFixtureTests {
    @Test("a work item whose block captures its owner is a root cycle (also after it ran); [weak self] and a work item a queue still holds: nothing",
          arguments: Optimization.allCases)
    func workItemCycle(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "DispatchWorkItems", optimization,
            leaking: LeakExpectation([CycleShape(members: ["Fixture.SearchController", "Dispatch.DispatchWorkItem"])]),
            cleanModes: ["fixed", "queued"]
        )
        guard let report else { return }
        let labels = report.references.map(\.label).sorted()
        #expect(labels == ["_block (closure)", "pending"], "\(report.references)")
        let suspect = try #require(report.cycles.first?.suspect)
        #expect(report.leaks[suspect.from].type == "Dispatch.DispatchWorkItem")
        #expect(suspect.label == "_block (closure)")

        let program = try await FixtureBuilds.shared.executable("DispatchWorkItems", optimization).path
        async let performed = LeakgraphRun.run(program, ["performed"])
        let captures = try await LeakgraphRun.run(program, ["captures"])
        expectLeaks(
            try await performed, LeakExpectation([CycleShape(members: ["Fixture.SearchController", "Dispatch.DispatchWorkItem"])]),
            program: program, mode: "performed")
        let capturing = expectLeaks(
            captures,
            LeakExpectation([
                CycleShape(
                    members: ["Fixture.SearchController", "Dispatch.DispatchWorkItem", "(closureContext)"],
                    holds: ["Fixture.QueryLog"])
            ]),
            program: program, mode: "captures")
        #expect(
            capturing?.references.map(\.label).sorted() == ["_block (closure)", "capture[0]", "capture[1]", "pending"],
            "\(capturing?.references ?? [])")
    }

    @Test(
        "a never-activated DispatchSource whose handler captures its owner, a queue's setSpecific value that is the queue's owner, a suspended OperationQueue whose operation captures its owner: found through the memory Dispatch and Foundation keep; kept, or activated, removed, drained: nothing",
        arguments: Optimization.allCases)
    func dispatchInternals(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "DispatchInternals", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Monitor", "Dispatch.DispatchSource"]),
                CycleShape(members: ["Fixture.Connection", "Dispatch.DispatchQueue", "Dispatch._DispatchSpecificValue<Fixture.Connection>"]),
                CycleShape(
                    members: ["Fixture.Uploader", "Foundation.OperationQueue", "Foundation.BlockOperation", "Dispatch.DispatchWorkItem", "(closureContext)"],
                    holds: ["(other)", "Foundation.NSCondition", "Foundation.NSLock", "Foundation.NSLock", "Foundation.NSLock", "Foundation.NSLock"]),
            ]),
            cleanModes: ["kept", "released"])
        guard let report else { return }
        let labels = Set(report.references.map(\.label))
        // libdispatch's source and queue are C memory only their Swift wrappers point to; the operation queue
        // links its operations with Unmanaged references.
        #expect(labels.isSuperset(of: ["__wrapped (malloc'd memory, raw pointer)", "__firstOperation (raw pointer)", "value"]), "\(labels)")
        #expect(report.leaks.allSatisfy { $0.proof.map { $0.retainCount == $0.inEdges.count } == true }, "\(report.leaks)")
    }
}
