import LeakGraphReport
import Testing

// Closure fixtures, leaking and fixed, at -Onone and -O, under
// `leakgraph run`: exact root cycles and the labels of every reference between leaked objects. Captures have
// no names in the metadata, so a context's references are labelled `capture[i]` in capture order.

@Suite("Reference kinds: closures", .timeLimit(.minutes(10)))
struct ClosureFixtureTests {
    @Test("captured vars live in boxes; a lone captured var's box is the closure's context", arguments: Optimization.allCases)
    func capturedVar(_ optimization: Optimization) async throws {
        // A closure whose only capture is a var uses the var's box as its context. Its metadata is the same
        // as that of a context capturing one `Owner?` by value, so it reads as a closure context. A box
        // reached through a `(box)` capture is known to be a box, and is shown as one.
        try await checkKindFixture(
            "CapturedVar", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Owner", "(closureContext)"]),
                CycleShape(members: ["Fixture.Console", "(closureContext)", "(box)"], holds: ["Fixture.Theme"]),
            ]),
            edges: [
                "Fixture.Owner —handler (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Owner",
                "Fixture.Console —printer (closure)→ (closureContext)",
                "(closureContext) —capture[0] (box)→ (box)",
                "(box) —value.console→ Fixture.Console",
                "(closureContext) —capture[1]→ Fixture.Theme",
            ])
    }

    @Test("lazy var closures leak once read (fixed: [weak self]; untouched: never read)", arguments: Optimization.allCases)
    func lazyVar(_ optimization: Optimization) async throws {
        // Labelled by the property a person wrote, not the compiler's `$__lazy_storage_$_onTap`.
        try await checkKindFixture(
            "LazyClosure", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Button"]),
                CycleShape(members: ["Fixture.Form", "(closureContext)"], holds: ["Fixture.Checker"]),
            ]),
            edges: [
                "Fixture.Button —onTap (closure)→ Fixture.Button",
                "Fixture.Form —validate (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Form",
                "(closureContext) —capture[1]→ Fixture.Checker",
                "Fixture.Form —checker→ Fixture.Checker",
            ],
            cleanModes: ["fixed", "untouched"])
    }

    @Test("closures in [String: () -> Void], [() -> Void], [Int: (String) -> Bool] and [Any]", arguments: Optimization.allCases)
    func inCollections(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "ClosureCollections", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Bus", "(dictionaryStorage)"]),
                CycleShape(members: ["Fixture.Queue", "(arrayStorage)"]),
                CycleShape(
                    members: ["Fixture.Router", "(dictionaryStorage)", "(closureContext)"], holds: ["Fixture.Logger"]),
                CycleShape(members: ["Fixture.Inbox", "(arrayStorage)", "(closureContext)"]),
            ]),
            edges: [
                "Fixture.Bus —handlers→ (dictionaryStorage)",
                "(dictionaryStorage) —[\"tap\"] (closure)→ Fixture.Bus",
                "Fixture.Queue —tasks→ (arrayStorage)",
                "(arrayStorage) —[0] (closure)→ Fixture.Queue",
                "(arrayStorage) —[1] (closure)→ Fixture.Queue",
                "Fixture.Router —routes→ (dictionaryStorage)",
                "(dictionaryStorage) —[404] (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Router",
                "(closureContext) —capture[1]→ Fixture.Logger",
                // Inside `Any` the closure is reabstracted: a thunk context holding the original closure.
                "Fixture.Inbox —items→ (arrayStorage)",
                "(arrayStorage) —[0] (() -> ()) (closure)→ (closureContext)",
                "(closureContext) —capture[0] (closure)→ Fixture.Inbox",
            ])
    }

    @Test("[weak audit, unowned clock, store] and self in one context", arguments: Optimization.allCases)
    func mixedOwnership(_ optimization: Optimization) async throws {
        // The `[weak audit]` capture is kept in a box of its own; its reference is weak, the clock's unowned.
        try await checkKindFixture(
            "MixedCaptures", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Session", "(closureContext)"],
                    holds: ["(box)", "Fixture.Audit", "Fixture.Clock", "Fixture.Store"])
            ]),
            edges: [
                "Fixture.Session —onEvent (closure)→ (closureContext)",
                "Fixture.Session —audit→ Fixture.Audit",
                "Fixture.Session —clock→ Fixture.Clock",
                "(closureContext) —capture[0] (box)→ (box)",
                "(box) —value→ Fixture.Audit [weak]",
                "(closureContext) —capture[1]→ Fixture.Store",
                "(closureContext) —capture[2]→ Fixture.Clock [unowned]",
                "(closureContext) —capture[3]→ Fixture.Session",
            ])
    }

    @Test("a closure storing another closure that captures self", arguments: Optimization.allCases)
    func nested(_ optimization: Optimization) async throws {
        // Player's outer closure holds self weakly (a box) and the Speaker; the inner one holds self and the
        // Speaker. Timer's two closures capture only self: both contexts are the Timer itself.
        try await checkKindFixture(
            "NestedClosures", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Player", "(closureContext)"],
                    holds: ["(closureContext)", "(box)", "Fixture.Speaker"]),
                CycleShape(members: ["Fixture.Timer"]),
            ]),
            edges: [
                "Fixture.Player —onStart (closure)→ (closureContext)",
                "(closureContext) —capture[0] (box)→ (box)",
                "(box) —value→ Fixture.Player [weak]",
                "(closureContext) —capture[2]→ Fixture.Speaker",
                "Fixture.Player —onStop (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Player",
                "(closureContext) —capture[1]→ Fixture.Speaker",
                "Fixture.Timer —fire (closure)→ Fixture.Timer",
                "Fixture.Timer —schedule (closure)→ Fixture.Timer",
            ])
    }

    @Test("generic contexts with six generic parameters and with a parameter of the enclosing generic class (depth 1)", arguments: Optimization.allCases)
    func manyGenericArguments(_ optimization: Optimization) async throws {
        let report = try await checkKindFixture(
            "ManyGenericArguments", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Hub", "(arrayStorage)", "(closureContext)"],
                    holds: ["Fixture.Token", "Fixture.Token", "Fixture.Token", "(arrayStorage)"]),
                CycleShape(
                    members: ["Fixture.Pipeline<Fixture.Token>", "(arrayStorage)", "(closureContext)"],
                    holds: ["Fixture.Token", "Fixture.Token"]),
            ]),
            edges: [
                "Fixture.Hub —handlers→ (arrayStorage)",
                "(arrayStorage) —[0] (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Hub",
                "(closureContext) —capture[1]→ Fixture.Token",
                "(closureContext) —capture[4]→ Fixture.Token",
                "(closureContext) —capture[6]→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Token",
                "Fixture.Pipeline<Fixture.Token> —stages→ (arrayStorage)",
                "(arrayStorage) —[0] (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Pipeline<Fixture.Token>",
                "(closureContext) —capture[1]→ Fixture.Token",
                "Fixture.Pipeline<Fixture.Token> —input→ Fixture.Token",
            ])
        #expect(report?.diagnostics.isEmpty == true, "every generic context is read: \(report?.diagnostics ?? [])")
    }

    @Test("generic captures: a generic method's closure capturing a T and self", arguments: Optimization.allCases)
    func generic(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "GenericCaptures", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Scheduler", "(arrayStorage)", "(closureContext)", "(closureContext)"],
                    holds: ["Fixture.Token", "Fixture.Token"]),
                CycleShape(members: ["Fixture.Mailbox<Fixture.Token>", "(closureContext)"], holds: ["Fixture.Token"]),
            ]),
            edges: [
                "Fixture.Scheduler —jobs→ (arrayStorage)",
                "(arrayStorage) —[0] (closure)→ (closureContext)",
                "(arrayStorage) —[1] (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Scheduler",
                "(closureContext) —capture[0]→ Fixture.Scheduler",
                "(closureContext) —capture[1]→ Fixture.Token",
                "(closureContext) —capture[1].token→ Fixture.Token",
                "Fixture.Mailbox<Fixture.Token> —listener (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Mailbox<Fixture.Token>",
                "(closureContext) —capture[1]→ Fixture.Token",
            ])
    }

    @Test("a generic closure capturing generic classes of its parameter (Future<T>, Optional<Future<T>>) binds no metadata: each capture is one strong pointer",
          arguments: Optimization.allCases)
    func genericClassCaptures(_ optimization: Optimization) async throws {
        let report = try await checkKindFixture(
            "GenericClassCaptures", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Future<Swift.Int>", "(arrayStorage)", "(closureContext)"],
                    holds: ["Fixture.Handler<Swift.Int>"]),
                CycleShape(
                    members: ["Fixture.Future<Swift.String>", "(arrayStorage)", "(closureContext)"],
                    holds: ["Fixture.Handler<Swift.String>"]),
            ]),
            edges: [
                "Fixture.Future<Swift.Int> —callbacks→ (arrayStorage)",
                "(arrayStorage) —[0] (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Handler<Swift.Int>",
                "(closureContext) —capture[1]→ Fixture.Future<Swift.Int>",
                "Fixture.Future<Swift.String> —callbacks→ (arrayStorage)",
                "(arrayStorage) —[0] (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Handler<Swift.String>",
                "(closureContext) —capture[1]→ Fixture.Future<Swift.String>",
            ])
        #expect(report?.diagnostics.isEmpty == true, "\(report?.diagnostics ?? [])")
    }

    @Test("closures inside tuples and indirect enum payloads: lowered function types laid out by the walk", arguments: Optimization.allCases)
    func closuresInTuples(_ optimization: Optimization) async throws {
        // The payload box of `indirect case step(name:run:next:)` and a context capturing a tuple
        // `(name:run:)` name their types with lowered function types, which the runtime cannot build; a
        // generic enum's payload box names its `() -> Action?` with a substituted function type.
        let report = try await checkKindFixture(
            "ClosuresInTuples", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Pipeline", "(box)"], holds: ["(box)"]),
                CycleShape(members: ["Fixture.Router", "(closureContext)"]),
                CycleShape(members: ["Fixture.Store<Swift.String>", "(box)"]),
            ]),
            edges: [
                "Fixture.Pipeline —steps (.step) (indirect)→ (box)",
                "(box) —value.run (closure)→ Fixture.Pipeline",
                "(box) —value.next (.step) (indirect)→ (box)",
                "Fixture.Router —route (closure)→ (closureContext)",
                "(closureContext) —capture[0].run (closure)→ Fixture.Router",
                "Fixture.Store<Swift.String> —pending (.run) (indirect)→ (box)",
                "(box) —value.work (closure)→ Fixture.Store<Swift.String>",
            ])
        #expect(report?.diagnostics == [])
    }
}
