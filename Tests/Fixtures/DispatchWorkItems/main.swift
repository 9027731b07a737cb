// A `DispatchWorkItem` stored in its owner whose block captures the owner. The
// work item keeps libdispatch's block, which keeps the block Swift made from the closure, which keeps the
// closure's context (here the owner itself, or a context object).
//
// leak:      `pending = DispatchWorkItem { print(self.query) }` — 1 root cycle: SearchController ⇄
//            DispatchWorkItem (the block's context is the controller itself).
// performed: the same work item, performed once before the controller is dropped: a block keeps its
//            closure after it ran, so the cycle is the same.
// captures:  `{ print(self.query, log.name) }` — the block's context is a context object holding the
//            controller and a `QueryLog`: root cycle SearchController, DispatchWorkItem, closure context;
//            holds the log.
// fixed:     `[weak self]` — nothing leaks.
// queued:    the strong work item is also handed to a queue, to run in an hour: the queue holds the block
//            too, so the controller is alive, not leaked (nothing is reported).

import Dispatch
import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, performed, captures, fixed, queued }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class QueryLog {
    var name = "log"
}

final class SearchController {
    var pending: DispatchWorkItem?
    var query = "swift"
    var runs = 0

    func scheduleStrong() {
        pending = DispatchWorkItem { self.runs += 1 }
    }

    func scheduleCapturing(_ log: QueryLog) {
        pending = DispatchWorkItem { self.runs += log.name.count }
    }

    func scheduleWeak() {
        pending = DispatchWorkItem { [weak self] in self?.runs += 1 }
    }
}

@inline(never)
func makeController() {
    let controller = SearchController()
    watch(controller)
    switch mode {
    case .leak:
        controller.scheduleStrong()
    case .performed:
        controller.scheduleStrong()
        controller.pending?.perform()
    case .captures:
        let log = QueryLog()
        watch(log)
        controller.scheduleCapturing(log)
    case .fixed:
        controller.scheduleWeak()
    case .queued:
        controller.scheduleStrong()
        if let item = controller.pending {
            DispatchQueue.global().asyncAfter(deadline: .now() + 3600, execute: item)
        }
    }
}

makeController()
finish(expectingAlive: [.leak: 1, .performed: 1, .captures: 2, .fixed: 0, .queued: 1][mode]!)
