// A `Task` stored in its owner whose closure captures the owner.
// leak, 5 root cycles (17 leaked objects):
//   - a FeedViewModel stores `refreshTask = Task { for await x in updates { self.handle(x) } }` over an
//     AsyncStream that never finishes (the view model holds the stream and its only Continuation), and
//     is dropped: the task waits forever and holds the view model through its closure — {FeedViewModel,
//     Task, the task's two closure contexts}, the task's own retain attributed to the view model's
//     `continuation (resumes Task)`;
//   - the same with an AsyncThrowingStream (`for try await`): {SearchViewModel, Task, 2 closure contexts};
//   - a Pair ⇄ Pair cycle that keeps a finished `Task` handle: {Pair, Pair} holding the Task;
//   - a task whose own closure keeps the only Continuation of the stream it waits on (nothing else can
//     ever finish it): {Task, its closure context}, the task's own retain attributed to the context's
//     `capture[…] (resumes Task)`;
//   - an abandoned task: `[weak self]` without cancelling, the view model gone (and with it the only
//     Continuation), no handle kept: {Task} (`suspended, nothing can resume it`) holding its two
//     closure contexts.
// fixed: `[weak self]`, and the view model cancels its task in deinit; the program waits for it.
// finished: the task (capturing self strongly) finishes before the view model is dropped.
// running: the task (capturing self strongly) is still running at exit, sleeping in a loop.
// streamFinished: the task (capturing self strongly) awaits a stream that is finished.
// continuationHeld: as leak's two view models, but globals keep copies of their Continuations: they can
//   still resume the tasks, so nothing is leaked.
// serviceHeld: as leak's view model, but a live service object (kept by a global) also keeps the
//   Continuation in an array: the task's own retain goes to that array, which is alive.
// serviceOnly: a Reader whose task captures it strongly waits on a stream whose only Continuation the
//   live service keeps: the task's own retain goes to the service's array — the Reader is alive.
// handleHeld: as leak's abandoned task, but a global keeps its handle (it could be cancelled).
// sharedStream: two tasks wait on one AsyncStream whose only Continuation a leaked Holder (a self-cycle)
//   keeps with task A's handle; task B's handle is in a global array. Cancelling B finishes the stream
//   and resumes A too, so A (and what it captures) is alive: only the Holder is leaked.
// Every mode but leak and sharedStream reports nothing.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed, finished, running, streamFinished, continuationHeld, serviceHeld, serviceOnly, handleHeld, sharedStream }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class FeedViewModel {
    var refreshTask: Task<Void, Never>?
    let updates: AsyncStream<Int>
    let continuation: AsyncStream<Int>.Continuation
    var total = 0

    init() {
        (updates, continuation) = AsyncStream.makeStream(of: Int.self)
    }

    func handle(_ value: Int) { total += value }

    func startStrong() {
        refreshTask = Task { for await value in updates { self.handle(value) } }
    }

    func startWeak() {
        refreshTask = Task { [weak self, updates] in
            for await value in updates { self?.handle(value) }
        }
    }

    func startFinishing() {
        refreshTask = Task { self.handle(1) }
    }

    func startRunning() {
        refreshTask = Task {
            while true {
                try? await Task.sleep(nanoseconds: 5_000_000)
                self.handle(1)
            }
        }
    }

    deinit {
        refreshTask?.cancel()
    }
}

final class SearchViewModel {
    var searchTask: Task<Void, Never>?
    let queries: AsyncThrowingStream<String, any Error>
    let continuation: AsyncThrowingStream<String, any Error>.Continuation
    var results = 0

    init() {
        (queries, continuation) = AsyncThrowingStream.makeStream(of: String.self)
    }

    func search(_ query: String) { results += query.count }

    func start() {
        searchTask = Task {
            do {
                for try await query in queries { self.search(query) }
            } catch {}
        }
    }
}

/// Builds a SearchViewModel waiting for its next query; in `continuationHeld` a global keeps its Continuation.
@inline(never)
func makeSearch() {
    let model = SearchViewModel()
    watch(model)
    model.start()
    model.continuation.yield("swift")
    if mode == .continuationHeld { keptThrowingContinuation = model.continuation }
}

final class Pair {
    var partner: Pair?
    var job: Task<Int, Never>?
}

/// The task of the `fixed` mode, awaited before exit.
nonisolated(unsafe) var awaited: Task<Void, Never>?
/// What the `continuationHeld` and `handleHeld` modes keep alive.
nonisolated(unsafe) var keptContinuation: AsyncStream<Int>.Continuation?
nonisolated(unsafe) var keptHandle: Task<Void, Never>?
nonisolated(unsafe) var keptThrowingContinuation: AsyncThrowingStream<String, any Error>.Continuation?

/// A service that feeds streams, kept alive by a global in the `serviceHeld` mode.
final class FeedService {
    var continuations: [AsyncStream<Int>.Continuation] = []
}
nonisolated(unsafe) var service: FeedService?

@inline(never)
func makeViewModel() async {
    let model = FeedViewModel()
    watch(model)
    switch mode {
    case .leak:
        model.startStrong()
        model.continuation.yield(1)
    case .fixed:
        model.startWeak()
        model.continuation.yield(1)
        awaited = model.refreshTask
    case .finished:
        model.startFinishing()
        await model.refreshTask?.value
    case .running:
        model.startRunning()
    case .streamFinished:
        model.startStrong()
        model.continuation.yield(1)
        model.continuation.finish()
        await model.refreshTask?.value
    case .continuationHeld:
        model.startStrong()
        model.continuation.yield(1)
        keptContinuation = model.continuation
    case .serviceHeld:
        model.startStrong()
        model.continuation.yield(1)
        let feeds = FeedService()
        watch(feeds)
        feeds.continuations.append(model.continuation)
        service = feeds
    case .serviceOnly, .handleHeld, .sharedStream:
        break
    }
}

/// A task that keeps its own stream's only Continuation: nothing else can finish the stream.
@inline(never)
func makeSelfFedTask() {
    let (lines, continuation) = AsyncThrowingStream.makeStream(of: String.self)
    Task {
        var count = 0
        for try await line in lines where line.isEmpty {
            count += 1
            if count > 3 { continuation.finish() }
        }
    }
}

/// A Reader whose task captures it and waits on a stream fed only by the live service.
@inline(never)
func makeReader() {
    final class Reader {
        var task: Task<Void, Never>?
        var count = 0
        func read(_ updates: AsyncStream<Int>) {
            task = Task { for await _ in updates { self.count += 1 } }
        }
    }
    let (updates, continuation) = AsyncStream.makeStream(of: Int.self)
    let reader = Reader()
    watch(reader)
    reader.read(updates)
    continuation.yield(1)
    let feeds = FeedService()
    feeds.continuations.append(continuation)
    service = feeds
}

/// A task left waiting on a stream whose view model (and Continuation) is gone, and nothing cancels it.
@inline(never)
func makeAbandonedTask() {
    final class Feed {
        var refreshTask: Task<Void, Never>?
        let updates: AsyncStream<Int>
        let continuation: AsyncStream<Int>.Continuation
        init() { (updates, continuation) = AsyncStream.makeStream(of: Int.self) }
        func handle(_ value: Int) {}
    }
    let feed = Feed()
    watch(feed)
    feed.refreshTask = Task { [weak feed, updates = feed.updates] in
        for await value in updates { feed?.handle(value) }
    }
    feed.continuation.yield(1)
    if mode == .handleHeld { keptHandle = feed.refreshTask }
}

/// Keeps a stream's only Continuation and waiter A's handle; `me` makes it a leaked self-cycle.
final class StreamHolder {
    var continuation: AsyncStream<Int>.Continuation?
    var task: Task<Void, Never>?
    var me: StreamHolder?
}
final class Probe {}
/// Waiter B's handle, in a global array (tracked array storage).
nonisolated(unsafe) var liveWaiters: [Task<Void, Never>] = []

@inline(never)
func makeSharedStream() {
    let (updates, continuation) = AsyncStream.makeStream(of: Int.self)
    let holder = StreamHolder()
    watch(holder)
    holder.continuation = continuation
    holder.me = holder  // store: sharedStream StreamHolder.me
    let probe = Probe()
    watch(probe)
    holder.task = Task { for await _ in updates {}; withExtendedLifetime(probe) {} }
    liveWaiters.append(Task { for await _ in updates {} })
}

@inline(never)
func makePair() async {
    let first = Pair()
    let second = Pair()
    watch(first)
    watch(second)
    first.partner = second
    second.partner = first  // store: leak Pair.partner
    let job = Task { 42 }
    _ = await job.value
    first.job = job
}

await makeViewModel()
if mode == .leak { await makePair() }
if mode == .leak || mode == .handleHeld { makeAbandonedTask() }
if mode == .serviceOnly { makeReader() }
if mode == .leak || mode == .continuationHeld { makeSearch() }
if mode == .leak { makeSelfFedTask() }
if mode == .sharedStream { makeSharedStream() }
// Let the task take the first value (and, when fixed, end) before exit.
try? await Task.sleep(nanoseconds: 50_000_000)
await awaited?.value
switch mode {
case .leak: finish(expectingAlive: 4)
case .running: finish(expectingAlive: 1)
case .continuationHeld: finish(expectingAlive: 2)
case .serviceHeld: finish(expectingAlive: 2)
case .serviceOnly: finish(expectingAlive: 1)
case .sharedStream: finish(expectingAlive: 2)
default: finish(expectingAlive: 0)
}
