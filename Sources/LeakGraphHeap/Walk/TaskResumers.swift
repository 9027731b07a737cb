import CLeakGraphMetadata
import LeakGraphModel

/// A suspended task whose runtime retain — the one a task holds on itself until it completes — the walk
/// attributes to the only object that could resume it, or to the task itself when nothing can.
///
/// A task that has not completed holds one retain on itself. Nothing in the heap explains it, so such a
/// task is a root: held, with everything it reaches. That is right for a task that is running, scheduled,
/// sleeping or waiting on anything LeakGraph cannot see. One case is read exactly: a task suspended in
/// the `next()` of an `AsyncStream` or `AsyncThrowingStream`, whose continuation the stream's storage
/// keeps (in its `continuations` array, or inline for the throwing stream's one consumer). Such a task
/// resumes only when something yields to or finishes the stream — through a `Continuation`, which holds
/// the storage — or cancels the task, through a `Task` handle. The stream's `_Context` (what stream
/// values and iterators hold) and its `produce` function (`storage.next`) cannot resume it: the
/// context's deinit cancels the stream, but the waiting task's own iterator keeps it alive, and `next`
/// adds a waiter without resuming one. So the retain is attributed (see
/// ``find(graph:continuations:plan:status:)``):
///
/// - to the one object holding the storage other than stream contexts, when exactly one does
///   (`continuation (resumes Task)`): the task lives exactly as long as that holder;
/// - to the task itself when none does (`suspended, nothing can resume it`): it lives as long as a
///   `Task` handle to it does.
///
/// Only when the task is the stream's one waiter — cancelling any waiter finishes the stream and so
/// resumes them all, so a second waiter's handle could resume this one — and every retain on the storage
/// and on the task is accounted for: the storage's retains are its
/// known holders plus exactly what the waiting tasks' async frames hold in `next()` (measured:
/// ``lg_async_stream_waiter_retains(_:)``, 2 per waiting task of an `AsyncStream` and 1 of an
/// `AsyncThrowingStream` on 6.3), the task's are its handles plus the one retain on itself, every
/// continuation in the storage is a tracked task suspended on it, and a continuations array belongs to
/// the storage alone. Anything else — an unknown holder of the stream, two holders, a task that is
/// running or enqueued, another runtime — leaves the task held.
struct TaskResumption: Equatable {
    /// The waiting task's node.
    let task: Int
    /// The stream storage's node.
    let storage: Int
    /// The node holding the storage's continuation, or `nil` when nothing can resume the task.
    let resumer: Int?
}

enum TaskResumers {
    /// The resumptions the walk can prove, from the strong graph of a compact scan and the raw
    /// continuations found in it (`holder`: the node whose memory holds one, `task`: the node it names).
    ///
    /// - Complexity: O(*n* + *e*) for *n* nodes and *e* strong references, only when a continuation of a
    ///   tracked task was found; otherwise O(1).
    static func find(
        graph: StrongReferenceGraph, continuations: [(holder: Int, task: Int?)], plan: (Int) -> ObjectPlan,
        status: (Int) -> UInt32
    ) -> [TaskResumption] {
        guard !continuations.isEmpty,
            lg_async_stream_waiter_retains(false) > 0 || lg_async_stream_waiter_retains(true) > 0
        else { return [] }
        // The tasks waiting in each continuations array; an array holding any continuation that is not a
        // tracked task is left out whole.
        var waiting: [Int: [Int]] = [:]
        var spoiled = Set<Int>()
        for (holder, task) in continuations {
            guard let task, plan(task).role == .task else {
                spoiled.insert(holder)
                continue
            }
            waiting[holder, default: []].append(task)
        }
        for holder in spoiled { waiting[holder] = nil }
        guard !waiting.isEmpty else { return [] }

        var inDegree = [Int](repeating: 0, count: graph.nodeCount)
        for target in graph.targets { inDegree[Int(target)] += 1 }
        func unexplained(_ node: Int) -> Int { Int(graph.retainCounts[node]) - inDegree[node] }
        /// The sources of every strong reference into the nodes of `wanted`.
        func sources(of wanted: Set<Int>) -> [Int: [Int]] {
            var result: [Int: [Int]] = [:]
            for source in 0..<graph.nodeCount {
                for position in Int(graph.offsets[source])..<Int(graph.offsets[source + 1]) {
                    let target = Int(graph.targets[position])
                    if wanted.contains(target) { result[target, default: []].append(source) }
                }
            }
            return result
        }

        // The continuations are the storage's own (an `AsyncThrowingStream` keeps its one waiter inline), or
        // in an array that is the storage's alone (an `AsyncStream`'s): one retain, one reference.
        let arraySources = sources(of: Set(waiting.keys.filter { plan($0).kind == .arrayStorage }))
        var tasksOfStorage: [Int: [Int]] = [:]
        var spoiledStorages = Set<Int>()
        for (holder, tasks) in waiting {
            let storage: Int
            if case .asyncStreamStorage = plan(holder).role {
                storage = holder
            } else {
                guard plan(holder).kind == .arrayStorage, graph.retainCounts[holder] == 1,
                    let holders = arraySources[holder], holders.count == 1,
                    case .asyncStreamStorage = plan(holders[0]).role
                else { continue }
                storage = holders[0]
            }
            if tasksOfStorage[storage] != nil { spoiledStorages.insert(storage) }
            tasksOfStorage[storage, default: []] += tasks
        }
        for storage in spoiledStorages { tasksOfStorage[storage] = nil }
        guard !tasksOfStorage.isEmpty else { return [] }

        // A task is suspended on one continuation: one named by two storages is left held.
        var storagesOfTask: [Int: Int] = [:]
        for tasks in tasksOfStorage.values { for task in tasks { storagesOfTask[task, default: 0] += 1 } }
        let storageSources = sources(of: Set(tasksOfStorage.keys))
        let suspendedMask = LG_TASK_STATUS_RUNNING | LG_TASK_STATUS_ENQUEUED | LG_TASK_STATUS_COMPLETE
        var result: [TaskResumption] = []
        // The consumer's side: stream contexts, and the closure contexts they reference — a stream context
        // references only its storage and its `produce` function (`storage.next`, which adds a waiter and
        // resumes none), whose context is the storage itself or, for `AsyncThrowingStream`, a closure
        // context capturing it. Whoever else holds that function can only call it.
        let candidates = Set(storageSources.values.joined().filter { plan($0).kind == .closureContext })
        let candidateSources = candidates.isEmpty ? [:] : sources(of: candidates)
        func isConsumer(_ node: Int) -> Bool {
            if plan(node).role == .asyncStreamContext { return true }
            guard candidates.contains(node), let holders = candidateSources[node] else { return false }
            return holders.contains { plan($0).role == .asyncStreamContext }
        }
        for (storage, tasks) in tasksOfStorage.sorted(by: { $0.key < $1.key }) {
            guard case .asyncStreamStorage(let throwing) = plan(storage).role else { continue }
            let perWaiter = Int(lg_async_stream_waiter_retains(throwing))
            // One waiter only: cancelling any task waiting in `next()` runs the storage's cancellation
            // handler, which finishes the stream and resumes every waiter — a handle to another waiter
            // resumes this one too, so with two waiters no single holder decides (they stay held).
            guard tasks.count == 1 else { continue }
            // Every retain on the storage: its references, plus exactly what the waiter's frames hold.
            guard perWaiter > 0, unexplained(storage) == perWaiter * tasks.count
            else { continue }
            // Every task suspended on its continuation, its only retain beyond its handles its own.
            guard tasks.allSatisfy({ task in
                let flags = status(task)
                return storagesOfTask[task] == 1 && flags & suspendedMask == 0 && flags & LG_TASK_STATUS_HAS_DEPENDENCY != 0 && unexplained(task) == 1
            }) else { continue }
            let resumers = Set((storageSources[storage] ?? []).filter { !isConsumer($0) })
            guard resumers.count <= 1 else { continue }
            for task in tasks.sorted() {
                result.append(TaskResumption(task: task, storage: storage, resumer: resumers.first))
            }
        }
        return result
    }
}
