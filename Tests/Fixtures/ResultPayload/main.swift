// Row 7 of LEAK-PATTERNS: `Result` payloads.
// - Job.outcome: Result<Worker, any Error>? = .success(worker) — an Optional of a multi-payload enum whose
//   other payload is an error box pointer; Worker.job → Job.
// - Order.typed: Result<Courier, OrderError> = .success(courier) — a typed error with its own payload case;
//   Courier.order → Order.
// - Batch.outcome: Result<Worker, any Error>? = .failure(plain error) beside a Worker held in `worker`;
//   Worker.batch → Batch: the failure case must not hide the other field.
// leak: 7 leaked objects — 3 root cycles {Job, Worker}, {Order, Courier}, {Batch, Worker}; the Batch cycle
// holds the PlainError's error box.
// fixed: the back references are `weak` and a global keeps the shapes alive — nothing leaks.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live payload must not look leaked.
var keptAlive: [AnyObject] = []

struct PlainError: Error {
    var code: Int
}

enum OrderError: Error {
    case cancelled
    case rejected(reason: String)
}

final class Worker {
    var job: Job?
    weak var weakJob: Job?
    var batch: Batch?
    weak var weakBatch: Batch?
}

final class Job {
    var outcome: Result<Worker, any Error>?
}

final class Courier {
    var order: Order?
    weak var weakOrder: Order?
}

final class Order {
    var typed: Result<Courier, OrderError> = .failure(.cancelled)
}

final class Batch {
    var outcome: Result<Worker, any Error>?
    var worker: Worker?
}

@inline(never)
func makeJob() {
    let job = Job()
    let worker = Worker()
    watch(job)
    watch(worker)
    job.outcome = .success(worker)
    switch mode {
    case .leak: worker.job = job
    case .fixed:
        worker.weakJob = job
        keptAlive.append(job)
    }
}

@inline(never)
func makeOrder() {
    let order = Order()
    let courier = Courier()
    watch(order)
    watch(courier)
    order.typed = .success(courier)
    switch mode {
    case .leak: courier.order = order
    case .fixed:
        courier.weakOrder = order
        keptAlive.append(order)
    }
}

@inline(never)
func makeBatch() {
    let batch = Batch()
    let worker = Worker()
    watch(batch)
    watch(worker)
    batch.outcome = .failure(PlainError(code: 3))
    batch.worker = worker
    switch mode {
    case .leak: worker.batch = batch
    case .fixed:
        worker.weakBatch = batch
        keptAlive.append(batch)
    }
}

makeJob()
makeOrder()
makeBatch()
finish(expectingAlive: 6)
