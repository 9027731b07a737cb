import LeakGraphReport
import Testing

// Orphaned retains: objects retained +1 whose pointer nothing holds any more,
// proven by the holder scan (docs/how-it-works.md, "Orphaned retains"), compiled at -Onone and -O and
// run end to end through `leakgraph run`.

@Suite("Orphaned retains under leakgraph run", .timeLimit(.minutes(10)))
struct OrphanFixtureTests {
    @Test(
        "Unmanaged.passRetained dropped and a C-style registration freed without release are orphans; a pointer kept as UnsafeRawPointer or Int(bitPattern:) in a global, a balanced release() and a local of a blocked thread are not",
        arguments: Optimization.allCases)
    func orphanedRetain(_ optimization: Optimization) async throws {
        let report = try await checkFixture(
            "OrphanedRetain", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Token"], holds: ["Fixture.Payload", "(arrayStorage)"]),
                CycleShape(members: ["Fixture.Listener"]),
            ]),
            cleanModes: ["fixed", "rawGlobal", "bitPatternGlobal", "threadLocal"]
        )
        guard let report else { return }
        #expect(report.cycles.allSatisfy { $0.kind == LeakReport.Cycle.orphanKind })
        let orphans = report.cycles.compactMap { cycle in report.leaks.first { $0.id == cycle.members.first } }
        #expect(orphans.allSatisfy { $0.retainCount == 1 && $0.proof?.inEdges.isEmpty == true })
        #expect(orphans.allSatisfy { !$0.backtrace.isEmpty }, "orphans carry their creation stacks")
        #expect(Set(report.cycles.compactMap(\.fingerprint)).count == 2)
    }

    @Test(
        "a thread blocked at exit whose dead stack is full of an orphan's address (where the kernel builds the signal frame that stops it): still an orphan; a local of a blocked thread holds",
        arguments: Optimization.allCases)
    func staleStackBelowStoppedThread(_ optimization: Optimization) async throws {
        // The scan reads a stopped thread's registers and its stack from the red zone up; before, it read
        // from the stop handler's frame up, and the signal frame's unwritten gaps (stale words of dead
        // frames) held the Token in every run.
        let program = try await FixtureBuilds.shared.executable("OrphanedRetain", optimization).path
        async let held = LeakgraphRun.run(program, ["threadLocal"])
        let run = try await LeakgraphRun.run(program, ["staleStack"])
        let report = expectLeaks(
            run, LeakExpectation([CycleShape(members: ["Fixture.Token"], holds: ["Fixture.Payload", "(arrayStorage)"])]),
            program: program, mode: "staleStack")
        #expect(report?.cycles.allSatisfy { $0.kind == LeakReport.Cycle.orphanKind } == true)
        expectNoLeaks(try await held, program: program, mode: "threadLocal")
    }

    @Test("the text names the orphan; an object retained from a queued DispatchWorkItem's block is named in a diagnostic, not reported")
    func opaqueHolders() async throws {
        let program = try await FixtureBuilds.shared.executable("OrphanedRetain", .release).path
        let leak = try await LeakgraphRun.run(program, ["leak"])
        #expect(leak.text?.contains("Orphan: Token retained 1 time, referenced from nowhere") == true, "\(leak.text ?? "")")
        // A work item handed to a queue: its block has two holders, so the walk does not read it.
        let queued = try await FixtureBuilds.shared.executable("DispatchWorkItems", .release).path
        let run = try await LeakgraphRun.run(queued, ["queued"])
        let report = try #require(run.report, "\(run.result.summary)")
        #expect(report.cycles.isEmpty)
        #expect(
            report.diagnostics.contains {
                $0.typeName == "Fixture.SearchController" && $0.reason.contains("`DispatchWorkItem` block that something else holds too")
            },
            "\(report.diagnostics)")
    }

    @Test("an unscheduled Timer whose block captures its owner: a root cycle, closed by the word CoreFoundation's timer keeps for its context",
          arguments: Optimization.allCases)
    func timerCycle(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("OrphanedRetain", optimization).path
        let run = try await LeakgraphRun.run(program, ["timerCycle"])
        let report = expectLeaks(
            run,
            LeakExpectation([CycleShape(members: ["Fixture.Poller", "Foundation.Timer", "Foundation.__NSCFType"], holds: ["Foundation._NSCFSet"])]),
            program: program, mode: "timerCycle")
        guard let report else { return }
        // The Timer's block captures the Poller (the suspect); the CFRunLoopTimer's context holds the Timer.
        #expect(report.cycles.first?.suspect?.label == "_fire (closure)", "\(String(describing: report.cycles.first?.suspect))")
        #expect(report.references.contains { $0.label.hasSuffix("(raw pointer)") && report.leaks[$0.to].type == "Foundation.Timer" })
        #expect(report.cycles.first?.knownLibraryLeak == nil)
    }

    @Test("an invalidated Timer is an orphan of swift-corelibs-foundation: reported as a known library leak, exit 0",
          arguments: Optimization.allCases)
    func invalidatedTimer(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("OrphanedRetain", optimization).path
        let run = try await LeakgraphRun.run(program, ["timerInvalidated"])
        #expect(run.result.status == 0, "\(run.result.summary)")
        let report = try #require(run.report, "\(run.result.summary)")
        #expect(report.cycles.count == 1)
        let cycle = try #require(report.cycles.first)
        #expect(cycle.kind == LeakReport.Cycle.orphanKind)
        #expect(cycle.members.map { id in report.leaks.first { $0.id == id }?.type } == ["Foundation.Timer"])
        #expect(cycle.knownLibraryLeak?.hasPrefix("known leak in swift-corelibs-foundation") == true, "\(String(describing: cycle.knownLibraryLeak))")
        #expect(!report.leaks.contains { $0.type == "Fixture.Poller" })
    }
}
