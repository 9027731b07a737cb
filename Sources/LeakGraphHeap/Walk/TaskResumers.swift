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
    /// The stream storage's node (the canary's, for a checked continuation).
    let storage: Int
    /// The node holding the storage's continuation, or `nil` when nothing can resume the task.
    let resumer: Int?
}

/// A task group's child whose own retain the walk attributes to its parent task: the child resumes when
/// its parent is cancelled (which cancels the group's children), or when what it waits on can resume
/// it — which, by the group rule, is what resumes the parent (``TaskResumers``).
struct ChildAttribution: Equatable {
    let parent: Int
    let child: Int
}

enum TaskResumers {
    /// What a stream's continuation names: a tracked task, or an `async let` child (untracked: it lives in
    /// its parent's allocator) whose tracked parent waits on it.
    private enum Waiter: Hashable, Comparable {
        case task(Int)
        case asyncLetChild(address: UInt, parent: Int)
    }

    /// The resumptions the walk can prove, from the strong graph of a compact scan and the raw
    /// continuations found in it (`holder`: the node whose memory holds one, `task`: the node it names,
    /// `address`: the address it names); and the group children whose own retain their parent holds.
    ///
    /// - Complexity: O(*n* + *e*) for *n* nodes and *e* strong references, only when a continuation of a
    ///   task was found; otherwise O(1).
    static func find(
        graph: StrongReferenceGraph, continuations: [(holder: Int, task: Int?, address: UInt)],
        plan: (Int) -> ObjectPlan,
        status: (Int) -> UInt32, node: (UInt) -> Int?
    ) -> (resumptions: [TaskResumption], children: [ChildAttribution]) {
        guard !continuations.isEmpty, lg_task_layout_known() else { return ([], []) }
        // Counted when first asked for: most heaps with continuations (a server's channels) have no
        // stream waiter to prove, and never ask.
        var inDegree: [Int32] = []
        func unexplained(_ node: Int) -> Int {
            if inDegree.isEmpty {
                inDegree = [Int32](repeating: 0, count: graph.nodeCount)
                inDegree.withUnsafeMutableBufferPointer { counts in
                    for target in graph.targets { counts[Int(target)] &+= 1 }
                }
            }
            return Int(graph.retainCounts[node]) - Int(inDegree[node])
        }
        let suspendedMask = LG_TASK_STATUS_RUNNING | LG_TASK_STATUS_ENQUEUED | LG_TASK_STATUS_COMPLETE
        func isSuspendedFlags(_ flags: UInt32) -> Bool {
            flags & suspendedMask == 0 && flags & LG_TASK_STATUS_HAS_DEPENDENCY != 0
        }
        /// A tracked task suspended on something, its only retain beyond its handles its own.
        func isSuspended(_ task: Int) -> Bool { isSuspendedFlags(status(task)) && unexplained(task) == 1 }
        /// Whether the task at `address` is itself a child task (a parent's cancellation could resume it).
        func isChild(_ address: UInt) -> Bool {
            var links = lg_task_child_links_t()
            return UnsafeRawPointer(bitPattern: address).map { lg_task_child_links($0, &links) } ?? true
        }
        func dependency(of task: Int, address: UInt) -> lg_task_dependency_t? {
            var found = lg_task_dependency_t()
            guard let pointer = UnsafeRawPointer(bitPattern: address), lg_task_dependency(pointer, &found) else {
                return nil
            }
            return found
        }

        // What each continuation names; a holder of a continuation that names anything else is left out.
        var waiting: [Int: [Waiter]] = [:]
        var spoiled = Set<Int>()
        var continuationsOfWaiter: [Waiter: Int] = [:]
        var addressOfTask: [Int: UInt] = [:]
        for (holder, task, address) in continuations {
            let waiter: Waiter
            if let task, plan(task).role == .task {
                waiter = .task(task)
                addressOfTask[task] = address
            } else if task == nil, let pointer = UnsafeRawPointer(bitPattern: address), lg_task_layout_known() {
                var links = lg_task_child_links_t()
                guard lg_task_child_links(pointer, &links), links.is_async_let,
                    let parent = node(UInt(bitPattern: links.parent)), plan(parent).role == .task
                else {
                    spoiled.insert(holder)
                    continue
                }
                waiter = .asyncLetChild(address: address, parent: parent)
                addressOfTask[parent] = UInt(bitPattern: links.parent)
            } else {
                spoiled.insert(holder)
                continue
            }
            waiting[holder, default: []].append(waiter)
            continuationsOfWaiter[waiter, default: 0] += 1
        }
        for holder in spoiled { waiting[holder] = nil }
        guard !waiting.isEmpty else { return ([], []) }

        // A task suspended on a checked continuation resumes only through it: every copy of the
        // `CheckedContinuation` holds its canary, which keeps the raw continuation until it is resumed
        // (cancelling the task does not resume it). So the task's own retain is the canary's: the task
        // lives exactly as long as some copy of the continuation does — when the canary is the only
        // continuation naming the task.
        var result: [TaskResumption] = []
        for (holder, waiters) in waiting.sorted(by: { $0.key < $1.key }) where plan(holder).role == .continuationCanary
        {
            guard waiters.count == 1, case .task(let task) = waiters[0], continuationsOfWaiter[waiters[0]] == 1,
                isSuspended(task)
            else { continue }
            result.append(TaskResumption(task: task, storage: holder, resumer: holder))
        }
        waiting = waiting.filter { plan($0.key).role != .continuationCanary }
        guard !waiting.isEmpty, lg_async_stream_waiter_retains(false) > 0 || lg_async_stream_waiter_retains(true) > 0
        else { return (result, []) }
        /// The sources of every strong reference into the nodes of `wanted` (one pass over the references,
        /// each tested against a mask: no hashing per reference).
        func sources(of wanted: Set<Int>) -> [Int: [Int]] {
            guard !wanted.isEmpty else { return [:] }
            var isWanted = [Bool](repeating: false, count: graph.nodeCount)
            for node in wanted { isWanted[node] = true }
            var result: [Int: [Int]] = [:]
            isWanted.withUnsafeBufferPointer { isWanted in
                graph.offsets.withUnsafeBufferPointer { offsets in
                    graph.targets.withUnsafeBufferPointer { targets in
                        for source in 0..<graph.nodeCount {
                            for position in Int(offsets[source])..<Int(offsets[source + 1]) {
                                let target = Int(targets[position])
                                if isWanted[target] { result[target, default: []].append(source) }
                            }
                        }
                    }
                }
            }
            return result
        }

        // The continuations are the storage's own (an `AsyncThrowingStream` keeps its one waiter inline), or
        // in an array that is the storage's alone (an `AsyncStream`'s): one retain, one reference.
        let arraySources = sources(of: Set(waiting.keys.filter { plan($0).kind == .arrayStorage }))
        var waitersOfStorage: [Int: [Waiter]] = [:]
        var spoiledStorages = Set<Int>()
        for (holder, waiters) in waiting {
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
            if waitersOfStorage[storage] != nil { spoiledStorages.insert(storage) }
            waitersOfStorage[storage, default: []] += waiters
        }
        for storage in spoiledStorages { waitersOfStorage[storage] = nil }
        guard !waitersOfStorage.isEmpty else { return (result, []) }

        // A task is suspended on one continuation: one named by two storages is left held.
        var storagesOfWaiter: [Waiter: Int] = [:]
        for waiters in waitersOfStorage.values { for waiter in waiters { storagesOfWaiter[waiter, default: 0] += 1 } }
        let storageSources = sources(of: Set(waitersOfStorage.keys))
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
        // Per waiter: the storage it waits on and the one object that could resume it through the stream
        // (nil: nothing can), when the stream rule holds for it.
        var stream: [Waiter: (storage: Int, resumer: Int?)] = [:]
        for (storage, waiters) in waitersOfStorage.sorted(by: { $0.key < $1.key }) {
            guard case .asyncStreamStorage(let throwing) = plan(storage).role else { continue }
            let perWaiter = Int(lg_async_stream_waiter_retains(throwing))
            // One waiter only: cancelling any task waiting in `next()` runs the storage's cancellation
            // handler, which finishes the stream and resumes every waiter — a handle to another waiter
            // resumes this one too, so with two waiters no single holder decides (they stay held).
            guard waiters.count == 1, let waiter = waiters.first else { continue }
            // Every retain on the storage: its references, plus exactly what the waiter's frames hold.
            guard perWaiter > 0, unexplained(storage) == perWaiter else { continue }
            // The waiter suspended on its continuation, named by no other.
            guard storagesOfWaiter[waiter] == 1, continuationsOfWaiter[waiter] == 1 else { continue }
            switch waiter {
            case .task(let task):
                guard isSuspended(task) else { continue }
            case .asyncLetChild(let address, _):
                guard let pointer = UnsafeRawPointer(bitPattern: address),
                    isSuspendedFlags(lg_task_status_flags(pointer))
                else { continue }
            }
            let resumers = Set((storageSources[storage] ?? []).filter { !isConsumer($0) })
            guard resumers.count <= 1 else { continue }
            stream[waiter] = (storage, resumers.first)
        }

        var children: [ChildAttribution] = []
        var groupsSeen = Set<UInt>()
        for (waiter, found) in stream.sorted(by: { $0.key < $1.key }) {
            switch waiter {
            case .task(let task):
                var links = lg_task_child_links_t()
                let address = addressOfTask[task] ?? 0
                guard let pointer = UnsafeRawPointer(bitPattern: address) else { continue }
                if !lg_task_child_links(pointer, &links) {
                    // A task of its own (`Task { }`): it resumes through the stream, or when cancelled
                    // through a handle (a counted reference of its own).
                    result.append(TaskResumption(task: task, storage: found.storage, resumer: found.resumer))
                    continue
                }
                // A task group's child: decided for its whole group below, once.
                // (A parent that is a child itself could be cancelled by its own parent: left held.)
                guard let group = links.group.map({ UInt(bitPattern: $0) }),
                    let parent = node(UInt(bitPattern: links.parent)),
                    !isChild(UInt(bitPattern: links.parent)), groupsSeen.insert(group).inserted,
                    let (resumption, attributions) = groupRule(
                        parent: parent, parentAddress: UInt(bitPattern: links.parent), group: group, stream: stream,
                        node: node,
                        isSuspended: isSuspended, dependency: dependency)
                else { continue }
                result.append(resumption)
                children += attributions
            case .asyncLetChild(let address, let parent):
                // The parent waits on this `async let` child, which only the stream (or the parent's own
                // cancellation, which its handles decide) can resume: the parent's own retain is the
                // stream's resumer's. The child's frames and captures live in the parent's allocator.
                guard isSuspended(parent), !isChild(addressOfTask[parent] ?? 0),
                    let waits = dependency(of: parent, address: addressOfTask[parent] ?? 0),
                    waits.kind == LG_TASK_WAITS_ON_TASK, UInt(bitPattern: waits.target) == address
                else { continue }
                result.append(TaskResumption(task: parent, storage: found.storage, resumer: found.resumer))
            }
        }
        return (result, children)
    }

    /// The group rule: the parent waits on its task group, and every child of the group is a tracked task
    /// the stream rule proved, all resumable by one object (or none). Then the parent's own retain is that
    /// object's (the parent resumes when its children finish, which only that object or the parent's own
    /// cancellation can bring about), and each child's own retain is the parent's (a child lives as long as
    /// its parent can cancel it, or can be resumed).
    private static func groupRule(
        parent: Int, parentAddress: UInt, group: UInt, stream: [Waiter: (storage: Int, resumer: Int?)],
        node: (UInt) -> Int?,
        isSuspended: (Int) -> Bool, dependency: (Int, UInt) -> lg_task_dependency_t?
    ) -> (TaskResumption, [ChildAttribution])? {
        guard isSuspended(parent), let waits = dependency(parent, parentAddress), waits.kind == LG_TASK_WAITS_ON_GROUP,
            UInt(bitPattern: waits.target) == group, let groupPointer = UnsafeRawPointer(bitPattern: group)
        else { return nil }
        var next = lg_task_group_first_child(groupPointer)
        guard next != UnsafeRawPointer(bitPattern: UInt.max) else { return nil }
        var children: [Int] = []
        var resumers = Set<Int?>()
        var storage: Int?
        while let child = next, children.count < 100_000 {
            guard let childNode = node(UInt(bitPattern: child)), let found = stream[.task(childNode)] else {
                return nil
            }
            var links = lg_task_child_links_t()
            guard lg_task_child_links(child, &links), UInt(bitPattern: links.group) == group,
                UInt(bitPattern: links.parent) == parentAddress
            else { return nil }
            children.append(childNode)
            resumers.insert(found.resumer)
            storage = storage ?? found.storage
            next = links.next_child
        }
        guard next == nil, let storage, resumers.count == 1, let resumer = resumers.first else { return nil }
        return (
            TaskResumption(task: parent, storage: storage, resumer: resumer),
            children.map { ChildAttribution(parent: parent, child: $0) }
        )
    }
}
