import LeakGraphModel
import LeakGraphReport
import Testing

// Issue 21: the generic closure contexts of reactive libraries, in a
// ReactiveSwift-shaped and an RxSwift-shaped fixture, at -Onone and -O. Each owner's subscription
// closure captures the owner that keeps the subscription: one root cycle per owner, whose exact members
// vary with the optimizer (inlined contexts), so each cycle is checked to hold its owner, and the
// references that only the generic and lowered-function layouts reveal are checked by label. Before this
// issue the same programs reported no leak at all, with the contexts named in the diagnostics.

@Suite("Reference kinds: reactive libraries' generic closures", .timeLimit(.minutes(10)))
struct ReactiveFixtureTests {
    @Test(
        "ReactiveSwift shapes: property.producer.startWithValues capturing its owner, map/filter chains, combineLatest (three parameters), Optional<(A) -> ()> handlers",
        arguments: Optimization.allCases)
    func reactiveSwiftShapes(_ optimization: Optimization) async throws {
        let report = try await checkOwnerCycles(
            "ReactiveShapes", optimization, owners: ["Fixture.Counter", "Fixture.Form", "Fixture.Pair", "Fixture.Panel"],
            edges: [
                // `Observer(value:failed:)`: its action captures `Optional<(Value) -> ()>`, whose context is
                // the owner (a closure capturing one object uses it as its context).
                "(closureContext) —capture[0] (closure)→ Fixture.Counter",
                "(closureContext) —capture[0] (closure)→ Fixture.Form",
                "(closureContext) —capture[0] (closure)→ Fixture.Pair",
                // `map`'s and `filter`'s closures capture the downstream observer (τ_0_0, τ_0_1 only from
                // bindings or from nowhere: the class is read without them).
                "(closureContext) —capture[1]→ Fixture.Observer<Swift.Int, Fixture.NoError>",
                // `combineLatest`: the latest values' box and the observer of tuples.
                "(closureContext) —capture[0]→ Fixture.SignalProducer<Swift.Int, Fixture.NoError>.Latest<Swift.String>",
                "(closureContext) —capture[1]→ Fixture.Observer<(Swift.Int, Swift.String), Fixture.NoError>",
                // `on(value:failed:)`: two optional handlers, then the observer.
                "(closureContext) —capture[0] (closure)→ Fixture.Panel",
                "(closureContext) —capture[2]→ Fixture.Observer<Swift.String, Fixture.NoError>",
            ])
        #expect(report?.diagnostics == [], "\(report?.diagnostics ?? [])")
    }

    @Test(
        "RxSwift shapes: a subject subscribed by its owner through map/filter, combineLatest, a generic subscribe<Observer>, do(onSuccess:onError:)",
        arguments: Optimization.allCases)
    func rxSwiftShapes(_ optimization: Optimization) async throws {
        let report = try await checkOwnerCycles(
            "RxShapes", optimization, owners: ["Fixture.SearchViewModel", "Fixture.Dashboard", "Fixture.Loader"],
            edges: [
                // `PublishSubject.subscribe<Observer>`: the disposable's closure captures the subject (its
                // parameters at depths 0 and 1, one source only a captured object's class).
                "(closureContext) —capture[0]→ Fixture.PublishSubject<Swift.String>",
                "(closureContext) —capture[0]→ Fixture.PublishSubject<Swift.Int>",
                // `subscribe(onNext:onError:onCompleted:)`: `Optional<(Element) -> ()>`, whose context is the owner.
                "(closureContext) —capture[0] (closure)→ Fixture.SearchViewModel",
                "(closureContext) —capture[0] (closure)→ Fixture.Dashboard",
                // `do(onSuccess:onError:)`: a tuple of optional throwing closures, read element by element.
                "(closureContext) —capture[1].onSuccess (closure)→ Fixture.Loader",
                "(closureContext) —capture[1].onError (closure)→ Fixture.Loader",
            ])
        #expect(report?.diagnostics == [], "\(report?.diagnostics ?? [])")
    }
}

/// Runs fixture `name` in its `leak`, `disposed` and `weak` modes under `leakgraph run`: the clean modes
/// report nothing; the leaking one reports exactly one root cycle per owner, each with its owner among
/// its members, and every reference in `edges` among the strong references between leaked objects.
@discardableResult
private func checkOwnerCycles(
    _ name: String, _ optimization: Optimization, owners: [String], edges: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) async throws -> LeakReport? {
    let program = try await FixtureBuilds.shared.executable(name, optimization).path
    async let leakRun = LeakgraphRun.run(program, ["leak"])
    for mode in ["disposed", "weak"] {
        expectNoLeaks(try await LeakgraphRun.run(program, [mode]), program: program, mode: mode, sourceLocation: sourceLocation)
    }
    let leaking = try await leakRun
    #expect(
        !leaking.result.signaled && leaking.result.status == LeakgraphRun.leakStatus,
        "`leak` must exit with \(LeakgraphRun.leakStatus): \(leaking.result.summary)", sourceLocation: sourceLocation)
    guard let report = leaking.report else {
        Issue.record("`leak` wrote no JSON report: \(leaking.result.summary)", sourceLocation: sourceLocation)
        return nil
    }
    expectConsistent(report, sourceLocation: sourceLocation)
    let leaks = Dictionary(report.leaks.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let ownersByCycle = report.cycles.map { cycle in
        cycle.members.compactMap { leaks[$0].map(stableTypeKey) }.filter(owners.contains).sorted()
    }
    #expect(ownersByCycle.sorted { $0.description < $1.description } == owners.sorted().map { [$0] }, sourceLocation: sourceLocation)
    let found = Set(edgeList(report))
    for edge in edges {
        #expect(found.contains(edge), "missing \(edge)", sourceLocation: sourceLocation)
    }
    return report
}
