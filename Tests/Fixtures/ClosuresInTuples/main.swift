// Issue 12, item 3: closures inside tuples and `indirect` enum payloads.
//
// An `indirect` case's payload lives in a box whose capture descriptor names the payload tuple with
// lowered function types (`SS4name_Ieg_3run<Step>4nextt`), and a closure capturing a tuple of a closure
// names it the same way: the runtime cannot build metadata for either, so the walk lays them out itself.
//
// leak:   a `Pipeline` whose `steps` is `.step(name:, run:, next: .step(…, next: .done))` where the first
//         step's `run` captures the pipeline: Pipeline ⇄ the first payload box (1 root cycle of 2, holding
//         the second box); a `Router` whose `route` closure captures a tuple `(name:, run:)` whose
//         optional `run` captures the router: Router → route's context → run → Router (1 root cycle
//         of 2); a `Store<String>` whose `pending` effect is a generic `indirect enum Effect<Action>`'s
//         `.run(work:then:)` whose `work` (`() -> Action?`) captures the store: the payload box names
//         the closure with a substituted function type (`@substituted <A> () -> @out A? for <String>`),
//         still a pointer and a context: Store ⇄ the box (1 root cycle of 2). 3 root cycles, 7 leaked
//         objects.
// fixed:  the same with `[weak pipeline]`, a `nil` `run` and `[weak store]` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

indirect enum Step {
    case step(name: String, run: () -> Void, next: Step)
    case done
}

final class Pipeline {
    var steps: Step = .done
    var runs = 0
    func advance() { runs += 1 }
}

indirect enum Effect<Action> {
    case run(work: () -> Action?, then: Effect<Action>)
    case none
}

final class Store<Action> {
    var pending: Effect<Action> = .none
    var sent: [Action] = []
    func send(_ action: Action) { sent.append(action) }
}

final class Router {
    var route: () -> String = { "" }
    var hits = 0
    func hit() { hits += 1 }
}

@inline(never)
func makePipeline() -> Pipeline {
    let pipeline = Pipeline()
    watch(pipeline)
    let run: () -> Void
    if mode == .leak {
        run = { pipeline.advance() }
    } else {
        run = { [weak pipeline] in pipeline?.advance() }
    }
    pipeline.steps = .step(name: "load", run: run, next: .step(name: "save", run: {}, next: .done))
    return pipeline
}

@inline(never)
func makeRouter() -> Router {
    let router = Router()
    watch(router)
    let entry: (name: String, run: (() -> Void)?)
    if mode == .leak {
        entry = (name: "home", run: { router.hit() })
    } else {
        entry = (name: "home", run: nil)
    }
    router.route = {
        entry.run?()
        return entry.name
    }
    return router
}

@inline(never)
func makeStore() -> Store<String> {
    let store = Store<String>()
    watch(store)
    if mode == .leak {
        store.pending = .run(work: { store.send("load"); return "loaded" }, then: .none)
    } else {
        store.pending = .run(work: { [weak store] in store?.send("load"); return "loaded" }, then: .none)
    }
    return store
}

@inline(never)
func escape(_ objects: [AnyObject]) -> Int {
    objects.count
}

let made = escape([makePipeline(), makeRouter(), makeStore()])
finish(expectingAlive: mode == .leak ? 3 : 0)
exit(made == 3 ? 0 : 1)
