// Issue 12, generic contexts: closure contexts of generic functions with more generic parameters
// than four, and with a parameter of an enclosing generic context (depth 1, `qd__` in the capture
// descriptor's mangling). Their captures are laid out from the bindings the context stores, resolved
// in a generic environment built for the context's shape.
//
// leak:  `Hub.combine<A…F>` appends `{ self.use(a, b, c, d, e, f) }` (six generic parameters, seven
//        captures) to `handlers`; `Pipeline<Input>.then<Output>(seed:)` appends `{ self.run(seed) }`
//        (Input at depth 0, Output at depth 1) to `stages`. Two root cycles: {Hub, array storage,
//        closure context} holding 3 Tokens and the array of one, and {Pipeline<Token>, array storage,
//        closure context} holding 2 Tokens (its input and the seed).
// fixed: both closures capture `[weak self]`; a global keeps the owners alive — nothing leaks.
//
// The generic functions are never specialized (`@_semantics`), so -O keeps their generic contexts.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

var keptAlive: [AnyObject] = []

final class Token {
    var uses = 0
}

final class Hub {
    var handlers: [() -> Void] = []
    var used = 0

    func use(_ values: Any...) { used += values.count }

    @inline(never)
    @_semantics("optimize.sil.specialize.generic.never")
    func combine<A, B, C, D, E, F>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, weakly: Bool) {
        if weakly {
            handlers.append { [weak self] in self?.use(a, b, c, d, e, f) }
        } else {
            handlers.append { self.use(a, b, c, d, e, f) }
        }
    }
}

final class Pipeline<Input> {
    var stages: [() -> Void] = []
    let input: Input
    var runs = 0

    init(_ input: Input) { self.input = input }

    func run<Output>(_ output: Output) { runs += 1 }

    @inline(never)
    @_semantics("optimize.sil.specialize.generic.never")
    func then<Output>(seed: Output, weakly: Bool) {
        if weakly {
            stages.append { [weak self] in self?.run(seed) }
        } else {
            stages.append { self.run(seed) }
        }
    }
}

@inline(never)
func makeHub() -> Int {
    let hub = Hub()
    let first = Token()
    let second = Token()
    let third = Token()
    watch(hub)
    watch(first)
    watch(second)
    watch(third)
    hub.combine(first, 1, "two", second, 3.0, [third], weakly: mode == .fixed)
    if mode == .fixed { keptAlive.append(hub) }
    return hub.handlers.count
}

@inline(never)
func makePipeline() -> Int {
    let input = Token()
    let seed = Token()
    let pipeline = Pipeline(input)
    watch(pipeline)
    watch(input)
    watch(seed)
    pipeline.then(seed: seed, weakly: mode == .fixed)
    if mode == .fixed { keptAlive.append(pipeline) }
    return pipeline.stages.count
}

let made = makeHub() + makePipeline()
finish(expectingAlive: 7)
exit(made == 2 ? 0 : 1)
