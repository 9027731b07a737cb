// Tasks that wait on something only leaked objects can
// resume — a task group's children and `async let` children parked on streams, a never-resumed
// CheckedContinuation — and an actor's task loop, whose async frames keep retains on the actor at -Onone.
//
// leak: 6 root cycles:
//   - an actor `Counter` runs `loop = Task { for await _ in events { self.bump() } }` over a stream whose
//     only Continuation it keeps: {Counter, Task, 2 closure contexts}; at -Onone the task's async frames
//     hold two more retains on the actor (found by the holder scan in its allocator's slabs);
//   - a `Fetcher` whose task awaits `withCheckedContinuation { self.pending = $0 }`, never resumed:
//     {Fetcher, CheckedContinuationCanary, Task, 2 closure contexts}, the task's own retain attributed to
//     the canary (`continuation (resumes Task)`);
//   - three `Service`s whose tasks run a task group (`withTaskGroup`, `withThrowingTaskGroup`,
//     `withDiscardingTaskGroup`) with two children looping over the service's streams: {Service, the
//     parent Task, its closure contexts, both child Tasks and theirs}: the parent's own retain is the
//     Service's (the one holder of the children's streams), each child's is the parent's (`child task`);
//   - a `Pipeline` whose task awaits two `async let` children looping over its streams: {Pipeline, Task,
//     2 closure contexts}; the children live in the parent's allocator (their captures are its async
//     frames), the parent's own retain is the Pipeline's.
//   Each also holds its streams' storage and context (how much of them depends on what the waiting tasks'
//   frames keep, found by the holder scan: the test checks the members).
// kept: the same six owners kept by globals: nothing leaks.
// finished: every stream finished and the continuation resumed before exit: the tasks complete.
// liveFeeder: the owners dropped, but a live global keeps the streams' Continuations (the group's and
//   async lets' children, the actor's loop can still be fed) and the continuation: nothing is leaked.
// handleKept: the owners dropped, but globals keep the parent tasks' handles: cancelling them would end
//   every child (and the actor's loop): nothing is leaked.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, kept, finished, liveFeeder, handleKept }

let mode = parseMode(Mode.self)

// MARK: - The shape

actor Counter {
    var count = 0
    var loop: Task<Void, Never>?
    let (events, continuation) = AsyncStream.makeStream(of: Int.self)

    func bump() { count += 1 }

    func start() {
        loop = Task { for await _ in events { self.bump() } }
    }
}

final class Fetcher {
    var pending: CheckedContinuation<Int, Never>?
    var task: Task<Void, Never>?
    var value = 0

    func start() {
        task = Task {
            let received = await withCheckedContinuation { continuation in self.pending = continuation }
            self.value = received
        }
    }
}

final class Service {
    /// Which group runs the children: `withTaskGroup`, `withThrowingTaskGroup`, `withDiscardingTaskGroup`.
    enum Group { case plain, throwing, discarding }

    let (orders, ordersIn) = AsyncStream.makeStream(of: Int.self)
    let (refunds, refundsIn) = AsyncStream.makeStream(of: Int.self)
    let group: Group
    var run: Task<Void, Never>?
    var handled = 0

    init(group: Group) { self.group = group }

    func handle(_ value: Int) { handled += value }

    func start() {
        switch group {
        case .plain:
            run = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { for await order in self.orders { self.handle(order) } }
                    group.addTask { for await refund in self.refunds { self.handle(-refund) } }
                }
            }
        case .throwing:
            run = Task {
                try? await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for await order in self.orders { self.handle(order) } }
                    group.addTask { for await refund in self.refunds { self.handle(-refund) } }
                    try await group.waitForAll()
                }
            }
        case .discarding:
            run = Task {
                await withDiscardingTaskGroup { group in
                    group.addTask { for await order in self.orders { self.handle(order) } }
                    group.addTask { for await refund in self.refunds { self.handle(-refund) } }
                }
            }
        }
    }
}

final class Pipeline {
    let (left, leftIn) = AsyncStream.makeStream(of: Int.self)
    let (right, rightIn) = AsyncStream.makeStream(of: Int.self)
    var run: Task<Void, Never>?
    var total = 0

    func drain(_ stream: AsyncStream<Int>) async -> Int {
        var sum = 0
        for await value in stream { sum += value }
        return sum
    }

    func start() {
        run = Task {
            async let leftSum = drain(left)
            async let rightSum = drain(right)
            total = await leftSum + rightSum
        }
    }
}

/// What the clean modes keep alive.
nonisolated(unsafe) var kept: [AnyObject] = []
nonisolated(unsafe) var feeders: [AsyncStream<Int>.Continuation] = []
nonisolated(unsafe) var keptContinuation: CheckedContinuation<Int, Never>?
nonisolated(unsafe) var handles: [Task<Void, Never>] = []

@inline(never)
func makeCounter() async {
    let counter = Counter()
    watch(counter)
    await counter.start()
    counter.continuation.yield(1)
    switch mode {
    case .kept: kept.append(counter)
    case .finished: counter.continuation.finish()
    case .liveFeeder: feeders.append(counter.continuation)
    case .handleKept: if let loop = await counter.loop { handles.append(loop) }
    case .leak: break
    }
}

@inline(never)
func makeFetcher() async {
    let fetcher = Fetcher()
    watch(fetcher)
    fetcher.start()
    // Wait until the task has handed its continuation over.
    while fetcher.pending == nil { try? await Task.sleep(nanoseconds: 1_000_000) }
    switch mode {
    case .kept: kept.append(fetcher)
    case .finished: fetcher.pending?.resume(returning: 7)
    case .liveFeeder: keptContinuation = fetcher.pending
    case .handleKept: break  // cancelling does not resume a checked continuation: kept alive below
    case .leak: break
    }
    if mode == .handleKept { keptContinuation = fetcher.pending }
}

@inline(never)
func makeService(_ group: Service.Group) {
    let service = Service(group: group)
    watch(service)
    service.start()
    service.ordersIn.yield(1)
    switch mode {
    case .kept: kept.append(service)
    case .finished:
        service.ordersIn.finish()
        service.refundsIn.finish()
    case .liveFeeder: feeders += [service.ordersIn, service.refundsIn]
    case .handleKept: if let run = service.run { handles.append(run) }
    case .leak: break
    }
}

@inline(never)
func makePipeline() {
    let pipeline = Pipeline()
    watch(pipeline)
    pipeline.start()
    pipeline.leftIn.yield(2)
    switch mode {
    case .kept: kept.append(pipeline)
    case .finished:
        pipeline.leftIn.finish()
        pipeline.rightIn.finish()
    case .liveFeeder: feeders += [pipeline.leftIn, pipeline.rightIn]
    case .handleKept: if let run = pipeline.run { handles.append(run) }
    case .leak: break
    }
}

await makeCounter()
await makeFetcher()
makeService(.plain)
makeService(.throwing)
makeService(.discarding)
makePipeline()
// Let every task take its first value and wait again (or finish).
try? await Task.sleep(nanoseconds: 100_000_000)
finish(expectingAlive: mode == .finished ? 0 : 6)
