import CLeakGraphMetadata
@testable import LeakGraphHeap
import LeakGraphModel
import Testing

// What the walk reads of tasks without a recorded heap: a `Task` value's layout, a live task's layout as
// the runtime reports it, and the references the task rule adds to a compact graph.

@Suite("Tasks in the walk")
struct TaskWalkTests {
    /// The metadata of `T`.
    static func metadata<T>(_ type: T.Type) -> UnsafeRawPointer {
        unsafeBitCast(type as Any.Type, to: UnsafeRawPointer.self)
    }

    @Test("a Task value is one strong reference to its task, written `(Task)`")
    func handle() {
        let slots = ValueLayouts().slots(of: Self.metadata(Task<Void, Never>.self))
        #expect(slots.count == 1)
        #expect(slots.first?.offset == 0)
        #expect(slots.first?.path == [.taskHandle])
        if case .reference(.strong)? = slots.first?.content {} else { Issue.record("not a strong reference: \(slots)") }
        // Optional<Task> keeps it, as a property would hold it.
        #expect(ValueLayouts().slots(of: Self.metadata(Task<Int, any Error>?.self)).count == 1)
    }

    @Test("an UnsafeContinuation holds its task unretained: seen as a continuation, never as a reference")
    func continuation() {
        let slots = ValueLayouts().slots(of: Self.metadata(UnsafeContinuation<Int?, Never>.self))
        #expect(slots.count == 1)
        if case .continuation? = slots.first?.content {} else { Issue.record("not a continuation: \(slots)") }
    }

    @Test("a live task's closure context is where the layout says, while it waits")
    func liveTask() async {
        final class Token: Sendable {}
        let token = Token()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let task = Task { for await _ in stream { _ = token } }
        let address = unsafeBitCast(task, to: UnsafeRawPointer.self)
        // Until it has started and waits (a loaded machine may take a while to run it).
        for _ in 0..<500 where lg_task_status_flags(address) & LG_TASK_STATUS_HAS_DEPENDENCY == 0 {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        let offset = lg_task_closure_context_offset(address)
        #expect(offset == 256, "a Task<(), Never>: 208-byte task, 24-byte future fragment, 32-byte prefix")
        let flags = lg_task_status_flags(address)
        #expect(flags & (LG_TASK_STATUS_RUNNING | LG_TASK_STATUS_COMPLETE) == 0)
        #expect(flags & LG_TASK_STATUS_HAS_DEPENDENCY != 0, "suspended on its stream's continuation")
        #expect(address.pointer(at: offset) != nil)
        continuation.finish()
        await task.value
        #expect(lg_task_status_flags(address) & LG_TASK_STATUS_COMPLETE != 0)
    }

    @Test("added references follow each source's own, and retain counts are kept")
    func adding() {
        let graph = StrongReferenceGraph(retainCounts: [1, 2, 1], offsets: [0, 1, 1, 2], targets: [1, 0])
        let added = graph.adding([(from: 2, to: 1), (from: 0, to: 2), (from: 0, to: 0)])
        #expect(added.retainCounts == graph.retainCounts)
        #expect(added.offsets == [0, 3, 3, 5])
        #expect(added.targets == [1, 2, 0, 0, 1])
        #expect(graph.adding([]) == graph)
    }
}
