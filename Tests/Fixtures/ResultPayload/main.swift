// `Result` payloads.
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

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
    case .leak: worker.job = job  // store: leak Worker.job
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
    case .leak: courier.order = order  // store: leak Courier.order
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
    case .leak: worker.batch = batch  // store: leak Worker.batch
    case .fixed:
        worker.weakBatch = batch
        keptAlive.append(batch)
    }
}

makeJob()
makeOrder()
makeBatch()
finish(expectingAlive: 6)
