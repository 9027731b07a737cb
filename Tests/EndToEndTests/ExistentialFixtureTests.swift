import LeakGraphReport
import Testing

// Existential fixtures, leaking and fixed, at -Onone and -O, under
// `leakgraph run`: exact root cycles and the labels of every reference between leaked objects.

@Suite("Reference kinds: existentials", .timeLimit(.minutes(10)))
struct ExistentialFixtureTests {
    @Test("class-bound: any Delegate, AnyObject, any A & B, View & Delegate (fixed: weak)", arguments: Optimization.allCases)
    func classBound(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "ClassBoundExistentials", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Registry", "Fixture.Screen"]),
                CycleShape(members: ["Fixture.Cache", "Fixture.Store"]),
                CycleShape(members: ["Fixture.Panel", "Fixture.Tab"]),
                CycleShape(members: ["Fixture.Canvas", "Fixture.Sketch"]),
            ]),
            edges: [
                "Fixture.Registry —delegate→ Fixture.Screen",
                "Fixture.Screen —registry→ Fixture.Registry",
                "Fixture.Cache —owner→ Fixture.Store",
                "Fixture.Store —cache→ Fixture.Cache",
                "Fixture.Panel —listener→ Fixture.Tab",
                "Fixture.Tab —panel→ Fixture.Panel",
                "Fixture.Canvas —view→ Fixture.Sketch",
                "Fixture.Sketch —canvas→ Fixture.Canvas",
            ])
    }

    @Test("opaque: value inline, value boxed, a class inside Any, two references inline", arguments: Optimization.allCases)
    func opaque(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "OpaqueExistentials", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Panel", "Fixture.Controller"]),
                CycleShape(members: ["Fixture.Window", "(box)", "Fixture.Presenter"]),
                CycleShape(members: ["Fixture.Slot", "Fixture.Anchor"]),
                CycleShape(members: ["Fixture.Deck", "Fixture.Speaker", "Fixture.Speaker"]),
            ]),
            edges: [
                "Fixture.Panel —content (Fixture.Caption).owner→ Fixture.Controller",
                "Fixture.Controller —panel→ Fixture.Panel",
                "Fixture.Window —root (any Fixture.Component as Fixture.Frame, boxed)→ (box)",
                "(box) —value.owner→ Fixture.Presenter",
                "Fixture.Presenter —window→ Fixture.Window",
                "Fixture.Slot —payload (Fixture.Anchor)→ Fixture.Anchor",
                "Fixture.Anchor —slot→ Fixture.Slot",
                "Fixture.Deck —card (Fixture.Pair).first→ Fixture.Speaker",
                "Fixture.Deck —card (Fixture.Pair).second→ Fixture.Speaker",
                "Fixture.Speaker —deck→ Fixture.Deck",
                "Fixture.Speaker —deck→ Fixture.Deck",
            ])
    }

    @Test("existentials in [any Delegate], [any Component], [String: any Component], [AnyObject], [Any]", arguments: Optimization.allCases)
    func inCollections(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "ExistentialCollections", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Registry", "(arrayStorage)", "Fixture.Screen", "Fixture.Screen"]),
                CycleShape(members: ["Fixture.Stage", "(arrayStorage)", "(box)", "Fixture.Actor"]),
                CycleShape(members: ["Fixture.Board", "(dictionaryStorage)", "(box)", "Fixture.Pin"]),
                CycleShape(members: ["Fixture.Shelf", "(arrayStorage)", "(arrayStorage)", "Fixture.Book", "Fixture.Book"]),
            ]),
            edges: [
                "Fixture.Registry —delegates→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Screen",
                "(arrayStorage) —[1]→ Fixture.Screen",
                "Fixture.Screen —registry→ Fixture.Registry",
                "Fixture.Screen —registry→ Fixture.Registry",
                "Fixture.Stage —parts→ (arrayStorage)",
                "(arrayStorage) —[0] (Fixture.Caption<Fixture.Actor>).owner→ Fixture.Actor",
                "(arrayStorage) —[1] (any Fixture.Component as Fixture.Frame<Fixture.Actor>, boxed)→ (box)",
                "(box) —value.owner→ Fixture.Actor",
                "Fixture.Actor —stage→ Fixture.Stage",
                "Fixture.Board —parts→ (dictionaryStorage)",
                "(dictionaryStorage) —[\"title\"] (Fixture.Caption<Fixture.Pin>).owner→ Fixture.Pin",
                "(dictionaryStorage) —[\"body\"] (any Fixture.Component as Fixture.Frame<Fixture.Pin>, boxed)→ (box)",
                "(box) —value.owner→ Fixture.Pin",
                "Fixture.Pin —board→ Fixture.Board",
                "Fixture.Shelf —items→ (arrayStorage)",
                "Fixture.Shelf —things→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Book",
                "(arrayStorage) —[0] (Fixture.Book)→ Fixture.Book",
                "Fixture.Book —shelf→ Fixture.Shelf",
                "Fixture.Book —shelf→ Fixture.Shelf",
            ])
    }
}
