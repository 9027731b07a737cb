import LeakGraphReport
import Testing

// Enum payload fixtures (LEAK-PATTERNS rows 7–8), leaking and fixed, at -Onone and -O, under
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
        try await checkKindFixture(
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
    }
}
