import LeakGraphReport
import Testing

// Tasks under `leakgraph run`, at -Onone and -O: a `Task` stored in its owner whose
// closure captures the owner while it waits on an AsyncStream nothing will finish, a cycle keeping a
// finished task, and a task nothing can resume. Must report nothing: the same shapes fixed with
// `[weak self]` and a cancel, a task that finished, one still running at exit, one whose stream finished,
// and those that can still be resumed (a Continuation kept by a global or by a live object, the task's
// handle kept by a global).

@Suite("Tasks", .timeLimit(.minutes(10)))
struct TaskFixtureTests {
    /// The root cycles of the `leak` mode.
    static let leakingCycles = LeakExpectation([
        CycleShape(members: ["Fixture.FeedViewModel", "(task)", "(closureContext)", "(closureContext)"]),
        CycleShape(members: ["Fixture.SearchViewModel", "(task)", "(closureContext)", "(closureContext)"]),
        CycleShape(members: ["Fixture.Pair", "Fixture.Pair"], holds: ["(task)"]),
        CycleShape(members: ["(task)", "(closureContext)"]),
        CycleShape(members: ["(task)"], holds: ["(closureContext)", "(closureContext)", "(box)"]),
    ])

    // The task rule itself, exactly: the leaking run without the holder scan, which may add what the
    // waiting tasks' async frames alone keep (checked in `asyncFrames`).
    @Test("Task { for (try) await … { self… } } stored in self; a finished task held by a cycle; an abandoned task", arguments: Optimization.allCases)
    func taskCycles(_ optimization: Optimization) async throws {
        let report = try await checkKindFixture(
            "TaskCycle", optimization,
            leaking: Self.leakingCycles,
            edges: [
                // The view model's task: the handle, the task's closure context (the Task initializer's thunk
                // around the closure), the closure's capture of self; the task's own retain is the view
                // model's, the only holder of the stream's Continuation.
                "Fixture.FeedViewModel —refreshTask (Task)→ (task)",
                "(task) —closure→ (closureContext)",
                "(closureContext) —capture[0] (closure)→ (closureContext)",
                "(closureContext) —capture[1]→ Fixture.FeedViewModel",
                "Fixture.FeedViewModel —continuation (resumes Task)→ (task)",
                // The same through an AsyncThrowingStream, which keeps its one waiter's continuation inline.
                "Fixture.SearchViewModel —searchTask (Task)→ (task)",
                "(task) —closure→ (closureContext)",
                "(closureContext) —capture[0] (closure)→ (closureContext)",
                "(closureContext) —capture[1]→ Fixture.SearchViewModel",
                "Fixture.SearchViewModel —continuation (resumes Task)→ (task)",
                // A finished task keeps no closure: only its handle leads to it.
                "Fixture.Pair —partner→ Fixture.Pair",
                "Fixture.Pair —partner→ Fixture.Pair",
                "Fixture.Pair —job (Task)→ (task)",
                // A task whose closure keeps its own stream's only Continuation.
                "(task) —closure→ (closureContext)",
                "(closureContext) —capture[2] (resumes Task)→ (task)",
                // The abandoned task: nothing holds a Continuation of its stream any more.
                "(task) —suspended, nothing can resume it→ (task)",
                "(task) —closure→ (closureContext)",
                "(closureContext) —capture[0] (closure)→ (closureContext)",
                "(closureContext) —capture[2] (box)→ (box)",
            ],
            cleanModes: ["fixed", "finished", "running", "streamFinished", "continuationHeld", "serviceHeld", "serviceOnly", "handleHeld"],
            leakEnvironment: ["LEAKGRAPH_ORPHAN_SCAN": "0"])
        guard let report else { return }
        // Every retain on each task is accounted for: its handles, and its own retain while it waits.
        let tasks = report.leaks.filter { $0.kind == "task" }
        #expect(tasks.count == 5)
        for task in tasks {
            #expect(task.type == "Task")
            #expect(task.proof.map { $0.retainCount == $0.inEdges.count } == true, "\(task)")
        }
        #expect(Set(tasks.map(\.retainCount)) == [1, 2])
        let cycle = try #require(report.cycles.first { cycle in
            cycle.members.contains { id in report.leaks.first { $0.id == id }?.type == "Fixture.FeedViewModel" }
        })
        #expect(cycle.suspect?.hint.contains("[weak self]") == true, "\(String(describing: cycle.suspect))")
        let abandoned = try #require(report.cycles.first { $0.members.count == 1 })
        #expect(abandoned.suspect?.hint.contains("continuation.finish()") == true)
        let selfFed = try #require(report.cycles.first { cycle in
            cycle.members.count == 2 && cycle.members.allSatisfy { id in report.leaks.first { $0.id == id }?.kind != "class" }
        })
        #expect(selfFed.suspect?.label.hasSuffix("(resumes Task)") == true, "\(String(describing: selfFed.suspect))")
        // The task is created where the program wrote `Task { … }`.
        let viewModelTask = try #require(
            report.leaks.first { leak in
                leak.kind == "task" && report.references.contains { $0.to == leak.id && $0.label == "refreshTask (Task)" }
            })
        #expect(viewModelTask.backtrace.contains { $0.function.contains("startStrong") || $0.function.contains("Task") })
    }

    @Test("with the holder scan, the same root cycles also hold the streams' internals that only the waiting tasks' async frames keep",
          arguments: Optimization.allCases)
    func asyncFrames(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("TaskCycle", optimization).path
        let run = try await LeakgraphRun.run(program, ["leak"])
        let report = try #require(run.report, "\(run.result.summary)")
        expectConsistent(report)
        let leaks = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // The members are the rule's; only what the cycles hold can grow, by the streams' storage, context,
        // `produce` closure and buffers (how many depends on stale words elsewhere: the scan only adds proof).
        let members = report.cycles.map { cycle in CycleShape(members: cycle.members.compactMap { leaks[$0].map(stableTypeKey) }) }
        #expect(Dictionary(members.map { ($0, 1) }, uniquingKeysWith: +) == Dictionary(
            Self.leakingCycles.cycles.map { (CycleShape(counting: $0.key.members), $0.value) }, uniquingKeysWith: +))
        let extra = report.leaks.filter { leak in
            !["(task)", "(closureContext)", "(box)", "Fixture.FeedViewModel", "Fixture.SearchViewModel", "Fixture.Pair"].contains(stableTypeKey(leak))
        }
        #expect(extra.allSatisfy { $0.type.hasPrefix("Swift.") }, "\(extra.map(\.type))")
        #expect(report.references.contains { $0.label == "async frames (raw pointer)" }, "\(report.references.map(\.label))")
        #expect(report.leaks.count >= Self.leakingCycles.leakedObjects)
    }

    @Test("two tasks wait on one AsyncStream: cancelling the live one would resume the other, so only the leaked holder of the Continuation is reported",
          arguments: Optimization.allCases)
    func sharedStream(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("TaskCycle", optimization).path
        let run = try await LeakgraphRun.run(program, ["sharedStream"])
        let report = expectLeaks(
            run, LeakExpectation([CycleShape(members: ["Fixture.StreamHolder"])]), program: program, mode: "sharedStream")
        #expect(report?.leaks.allSatisfy { $0.type == "Fixture.StreamHolder" } == true, "\(report?.leaks.map(\.type) ?? [])")
        #expect(report?.references.contains { $0.label.hasSuffix("(resumes Task)") } == false)
    }

    @Test(
        "an actor's task loop, a never-resumed CheckedContinuation, the children of a task group (plain, throwing, discarding) and of async lets parked on their owner's streams: found; kept, finished, fed by a live object, or a handle kept: nothing",
        arguments: Optimization.allCases)
    func childrenAndContinuations(_ optimization: Optimization) async throws {
        let program = try await FixtureBuilds.shared.executable("TaskWaits", optimization).path
        async let leakRun = LeakgraphRun.run(program, ["leak"])
        var cleanRuns: [(String, LeakgraphRun)] = []
        for mode in ["kept", "finished", "liveFeeder", "handleKept"] {
            cleanRuns.append((mode, try await LeakgraphRun.run(program, [mode])))
        }
        for (mode, run) in cleanRuns {
            expectNoLeaks(run, program: program, mode: mode)
        }
        // One run: the `async let` children's own slabs (where the Pipeline's children keep their frames once
        // the room their parent gave them is used up) are the parent's memory, so their words no longer hold.
        let leaking = try await leakRun
        let report = try #require(leaking.report, "\(leaking.result.summary)")
        expectConsistent(report)
        #expect(leaking.result.status == LeakgraphRun.leakStatus)
        let leaks = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        // The members are exact; what each cycle holds (the streams' storage, context and buffers) depends
        // on what the waiting tasks' frames keep at the moment of the check.
        let members = report.cycles.map { cycle in CycleShape(members: cycle.members.compactMap { leaks[$0].map(stableTypeKey) }) }
        // The three services: withTaskGroup, withDiscardingTaskGroup (each child's closure wrapped in a
        // thunk's context), withThrowingTaskGroup (not wrapped).
        #expect(
            Dictionary(members.map { ($0, 1) }, uniquingKeysWith: +) == [
                CycleShape(members: ["Fixture.Counter", "(task)", "(closureContext)", "(closureContext)"]): 1,
                CycleShape(members: ["Fixture.Fetcher", "Swift.CheckedContinuationCanary", "(task)", "(closureContext)", "(closureContext)"]): 1,
                CycleShape(counting: ["Fixture.Service": 1, "(task)": 3, "(closureContext)": 6]): 2,
                CycleShape(counting: ["Fixture.Service": 1, "(task)": 3, "(closureContext)": 4]): 1,
                CycleShape(members: ["Fixture.Pipeline", "(task)", "(closureContext)", "(closureContext)"]): 1,
            ], "\(members)")
        #expect(report.cycles.count == 6)
        let held = Set(report.cycles.flatMap(\.holds).compactMap { leaks[$0].map(stableTypeKey) })
        #expect(held.isSubset(of: ["(other)", "(arrayStorage)", "(closureContext)"]), "\(held)")
        let labels = Set(report.references.map(\.label))
        // The group's parent holds each child's own retain; the Service holds the parent's (it alone can feed
        // the children's streams); the canary holds the Fetcher's task's.
        #expect(report.references.filter { $0.label == "child task" }.count == 6, "\(labels)")
        #expect(labels.isSuperset(of: ["continuation (resumes Task)", "loop (Task)", "run (Task)", "task (Task)", "pending"]), "\(labels)")
        // The actor: at -Onone its loop's frames hold two retains on it, found in the task's allocator.
        if optimization == .debug {
            #expect(
                report.references.contains { $0.label == "async frames (raw pointer)" && leaks[$0.to]?.type == "Fixture.Counter" },
                "\(report.references.map(\.label))")
        }
        // Every retain of every member is accounted for.
        let memberIDs = Set(report.cycles.flatMap(\.members))
        #expect(report.leaks.filter { memberIDs.contains($0.id) }.allSatisfy { $0.proof.map { $0.retainCount == $0.inEdges.count } == true })
    }
}
