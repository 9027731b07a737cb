import LeakGraphModel
import LeakGraphReport
import Testing

// Enum payload fixtures, leaking and fixed, at -Onone and -O, under
// `leakgraph run`: exact root cycles and the labels of every reference between leaked objects. In each fixed
// variant a global keeps the shapes alive, so the walk reads live payloads there and must not invent a leak.

@Suite("Reference kinds: enums", .timeLimit(.minutes(10)))
struct EnumFixtureTests {
    @Test("single-payload enums: .connected(Connection, retries:) and .on(Switch)", arguments: Optimization.allCases)
    func singlePayload(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "SinglePayloadEnum", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Client", "Fixture.Connection"]),
                CycleShape(members: ["Fixture.Lamp", "Fixture.Switch"]),
            ]),
            edges: [
                "Fixture.Client —state (.connected).0→ Fixture.Connection",
                "Fixture.Connection —client→ Fixture.Client",
                "Fixture.Lamp —power (.on)→ Fixture.Switch",
                "Fixture.Switch —lamp→ Fixture.Lamp",
            ])
    }

    @Test("multi-payload enums: spare-bit tags, an extra tag byte, a two-word payload", arguments: Optimization.allCases)
    func multiPayload(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "MultiPayloadEnum", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Dock", "Fixture.Relay"]),
                CycleShape(members: ["Fixture.Gate", "Fixture.Visitor"]),
                CycleShape(members: ["Fixture.Tower", "Fixture.Antenna"], holds: ["Fixture.Cable"]),
            ]),
            edges: [
                "Fixture.Dock —route (.backup)→ Fixture.Relay",
                "Fixture.Relay —dock→ Fixture.Dock",
                "Fixture.Gate —slot (.guest)→ Fixture.Visitor",
                "Fixture.Visitor —gate→ Fixture.Gate",
                "Fixture.Tower —link (.both).0→ Fixture.Antenna",
                "Fixture.Tower —link (.both).cable→ Fixture.Cable",
                "Fixture.Antenna —tower→ Fixture.Tower",
            ])
    }

    @Test("indirect cases: payload boxes are boxes, labelled by their place in the payload", arguments: Optimization.allCases)
    func indirect(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "IndirectEnum", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Keeper", "(box)"], holds: ["Fixture.Keeper"]),
                CycleShape(members: ["Fixture.Ledger", "(box)", "(box)"]),
            ]),
            edges: [
                "Fixture.Keeper —tree (.node) (indirect)→ (box)",
                "(box) —value.0 (.leaf)→ Fixture.Keeper",
                "(box) —value.1 (.leaf)→ Fixture.Keeper",
                "Fixture.Ledger —route (.via) (indirect)→ (box)",
                "(box) —value.1 (.stop) (indirect)→ (box)",
                "(box) —value→ Fixture.Ledger",
            ])
    }

    @Test("Result payloads: success objects, a failure's error box held by the cycle", arguments: Optimization.allCases)
    func result(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "ResultPayload", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Job", "Fixture.Worker"]),
                CycleShape(members: ["Fixture.Order", "Fixture.Courier"]),
                CycleShape(members: ["Fixture.Batch", "Fixture.Worker"], holds: ["(other)"]),
            ]),
            edges: [
                "Fixture.Job —outcome (.success)→ Fixture.Worker",
                "Fixture.Worker —job→ Fixture.Job",
                "Fixture.Order —typed (.success)→ Fixture.Courier",
                "Fixture.Courier —order→ Fixture.Order",
                "Fixture.Batch —outcome (.failure)→ (other)",
                "Fixture.Batch —worker→ Fixture.Worker",
                "Fixture.Worker —batch→ Fixture.Batch",
            ])
    }

    @Test("errors holding their owner inside `any Error` boxes", arguments: Optimization.allCases)
    func errorPayload(_ optimization: Optimization) async throws {
        // The error box (metadata kind 0x501) holds the error value; its `request`/`upload` is the
        // strong reference back.
        try await checkKindFixture(
            "ErrorPayload", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Request", "(other)"]),
                CycleShape(members: ["Fixture.Upload", "(other)"]),
            ]),
            edges: [
                "Fixture.Request —outcome (.failure)→ (other)",
                "(other) —value.request→ Fixture.Request",
                "Fixture.Upload —lastError→ (other)",
                "(other) —value.upload→ Fixture.Upload",
            ])
    }

    @Test("Optional<enum>, enum of Optional, nested Optionals", arguments: Optimization.allCases)
    func optionals(_ optimization: Optimization) async throws {
        let report = try await checkKindFixture(
            "OptionalEnums", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Machine", "Fixture.Runner"]),
                CycleShape(members: ["Fixture.Holder", "Fixture.Node"]),
                CycleShape(members: ["Fixture.Cell", "Fixture.Item"]),
            ]),
            edges: [
                "Fixture.Machine —phase (.running)→ Fixture.Runner",
                "Fixture.Runner —machine→ Fixture.Machine",
                "Fixture.Holder —slot (.filled)→ Fixture.Node",
                "Fixture.Node —holder→ Fixture.Holder",
                "Fixture.Cell —doubly→ Fixture.Item",
                "Fixture.Item —cell→ Fixture.Cell",
            ])
        // Pinned: the fingerprints of these three shapes, computed outside Swift from the label-based scheme
        // LeakGraph used before typed paths (FNV-1a 64 of the header and sorted `Source⇥label⇥Target` lines).
        #expect(Set(report?.cycles.compactMap(\.fingerprint) ?? []) == ["eaed3e4be2d21bc0", "f745f1d98cae1039", "f9fd2c42fb7b93e5"])
    }

    @Test(
        "a struct with one class field in an Optional, an enum payload or a tuple keeps its field in the path",
        arguments: Optimization.allCases)
    func singleFieldPayloads(_ optimization: Optimization) async throws {
        let report = try await checkKindFixture(
            "SingleFieldPayloads", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Doc", "Fixture.Page"]),
                CycleShape(members: ["Fixture.Doc2", "Fixture.Sheet"]),
                CycleShape(members: ["Fixture.Doc3", "Fixture.Note"]),
            ]),
            edges: [
                "Fixture.Doc —page→ Fixture.Page",
                "Fixture.Page —back.owner→ Fixture.Doc",
                "Fixture.Doc2 —sheet→ Fixture.Sheet",
                "Fixture.Sheet —slot (.held).owner→ Fixture.Doc2",
                "Fixture.Doc3 —note→ Fixture.Note",
                "Fixture.Note —pair.0.owner→ Fixture.Doc3",
            ])
        guard let report else { return }
        // The suspect is the back-reference named `owner`; its fix must compile: `weak var owner` is offered
        // only where `owner` itself holds the reference (a struct field, whatever holds the struct).
        let hints = Dictionary(
            report.cycles.compactMap { cycle in cycle.suspect.map { ($0.label, $0.hint) } }, uniquingKeysWith: { a, _ in a })
        #expect(hints["back.owner"] == "make it `weak var owner`")
        #expect(hints["slot (.held).owner"] == "make it `weak var owner`")
        #expect(hints["pair.0.owner"] == "make it `weak var owner`")
        // The typed path is in the JSON report.
        let paths = Set(report.references.map(\.path))
        #expect(paths.contains([.property("back"), .optionalPayload, .property("owner")]))
        #expect(paths.contains([.property("slot"), .enumCase("held"), .property("owner")]))
        #expect(paths.contains([.property("pair"), .optionalPayload, .tupleElement("0"), .property("owner")]))
    }
}
