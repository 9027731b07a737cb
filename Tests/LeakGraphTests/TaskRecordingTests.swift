import LeakGraph
import Testing

/// A view model whose task waits on a stream that only the view model can finish.
private final class TaskOwner: @unchecked Sendable {
    var refreshTask: Task<Void, Never>?
    let updates: AsyncStream<Int>
    let continuation: AsyncStream<Int>.Continuation
    var total = 0

    init() {
        (updates, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    func handle(_ value: Int) { total += value }
}

/// Starts a TaskOwner's task, capturing it strongly or weakly, and drops the owner.
@inline(never)
private func startOwner(strongly: Bool) -> Task<Void, Never>? {
    let owner = TaskOwner()
    if strongly {
        owner.refreshTask = Task { for await value in owner.updates { owner.handle(value) } }
        owner.continuation.yield(1)
        return nil
    }
    owner.refreshTask = Task { [weak owner, updates = owner.updates] in
        for await value in updates { owner?.handle(value) }
    }
    owner.continuation.yield(1)
    owner.continuation.finish()
    return owner.refreshTask
}

/// In-process recording sees tasks too: the `swift_task_create` imports are patched at installation as
/// the `free` imports are (docs/how-it-works.md, Tasks).
@Suite("Tasks in-process", .serialized)
struct TaskRecordingTests {
    /// The root cycles holding a TaskOwner.
    func ownerCycles(_ report: LeakReport) -> [LeakReport.Cycle] {
        let types = Dictionary(report.leaks.map { ($0.id, $0.type) }, uniquingKeysWith: { a, _ in a })
        return report.cycles.filter { cycle in cycle.members.contains { types[$0]?.hasSuffix("TaskOwner") == true } }
    }

    @Test("a task that captures its owner and waits on the owner's stream is found; a finished one is not")
    func taskCycle() async throws {
        try LeakChecker.startRecording()
        let before = ownerCycles(LeakChecker.check()).count

        await startOwner(strongly: false)?.value
        #expect(ownerCycles(LeakChecker.check()).count == before, "a finished task reported")

        _ = startOwner(strongly: true)
        // Let the task take its first value and wait again.
        try await Task.sleep(nanoseconds: 50_000_000)
        let report = LeakChecker.check()
        let cycles = ownerCycles(report)
        #expect(cycles.count == before + 1)
        let cycle = try #require(cycles.last)
        let kinds = Dictionary(report.leaks.map { ($0.id, $0.kind) }, uniquingKeysWith: { a, _ in a })
        #expect(cycle.members.filter { kinds[$0] == "task" }.count == 1)
        let labels = Set(report.references.filter { cycle.members.contains($0.from) }.map(\.label))
        #expect(labels.isSuperset(of: ["refreshTask (Task)", "closure", "continuation (resumes Task)"]), "\(labels)")
    }
}
