import LeakGraphReport
import Testing

// Type fixtures: generics with class arguments, Foundation fields,
// NSObject subclasses and a subclass of a Foundation class, actors, final and non-final hierarchies.
// Leaking and fixed, at -Onone and -O, under `leakgraph run`.
//
// Class hierarchies across modules of the user's own cannot be written as a single-file fixture; the
// NSObjectDelegate fixture subclasses Foundation's open JSONEncoder instead.

@Suite("Reference kinds: types", .timeLimit(.minutes(10)))
struct TypeKindFixtureTests {
    @Test("generic structs, generic class, subclass of a generic class, generic enum", arguments: Optimization.allCases)
    func generics(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "GenericTypes", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Holder", "Fixture.Left"], holds: ["Fixture.Right"]),
                CycleShape(members: ["Fixture.Wrapper<Fixture.Inner>", "Fixture.Inner", "(arrayStorage)"]),
                CycleShape(members: ["Fixture.Derived", "Fixture.Probe"]),
                CycleShape(members: ["Fixture.Choice", "Fixture.Probe"]),
            ]),
            edges: [
                "Fixture.Holder —pair.first→ Fixture.Left",
                "Fixture.Holder —pair.second→ Fixture.Right",
                "Fixture.Left —holder→ Fixture.Holder",
                "Fixture.Wrapper<Fixture.Inner> —inner.value→ Fixture.Inner",
                "Fixture.Wrapper<Fixture.Inner> —inner.items→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Inner",
                "Fixture.Inner —wrapper→ Fixture.Wrapper<Fixture.Inner>",
                "Fixture.Derived —element→ Fixture.Probe",
                "Fixture.Probe —derived→ Fixture.Derived",
                "Fixture.Choice —either (.left)→ Fixture.Probe",
                "Fixture.Probe —choice→ Fixture.Choice",
            ])
    }

    @Test("Data, URL, Date, UUID and [String: Data] fields beside references", arguments: Optimization.allCases)
    func foundationFields(_ optimization: Optimization) async throws {
        // The Foundation values' own storage objects are held by the cycles. Labels are compared by the
        // user's property only (`blob`, not `blob._representation (.slice).storage`): what follows it is
        // Foundation's internal layout.
        try await checkKindFixture(
            "FoundationFields", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Record", "Fixture.Store", "(arrayStorage)"],
                    holds: [
                        "FoundationEssentials.__DataStorage", "FoundationEssentials.__DataStorage",
                        "FoundationEssentials._SwiftURL", "FoundationEssentials.URLParseInfo", "(dictionaryStorage)",
                    ]),
                CycleShape(
                    members: ["Fixture.Download", "Fixture.Session"],
                    holds: [
                        "FoundationEssentials.__DataStorage", "FoundationEssentials._SwiftURL",
                        "FoundationEssentials.URLParseInfo", "(other)",
                    ]),
            ]),
            edges: [
                "Fixture.Store —records→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Record",
                "Fixture.Record —store→ Fixture.Store",
                "Fixture.Record —blob→ FoundationEssentials.__DataStorage",
                "Fixture.Record —url→ FoundationEssentials._SwiftURL",
                "Fixture.Record —attachments→ (dictionaryStorage)",
                "(dictionaryStorage) —[\"a\"]→ FoundationEssentials.__DataStorage",
                "FoundationEssentials._SwiftURL —_parseInfo→ FoundationEssentials.URLParseInfo",
                // The download URL is too long for a small string: its string storage is held too.
                "FoundationEssentials.URLParseInfo —urlString→ (other)",
                "Fixture.Session —download→ Fixture.Download",
                "Fixture.Download —owner→ Fixture.Session",
                "Fixture.Download —received→ FoundationEssentials.__DataStorage",
                "Fixture.Download —source→ FoundationEssentials._SwiftURL",
                "FoundationEssentials._SwiftURL —_parseInfo→ FoundationEssentials.URLParseInfo",
            ],
            edgeForm: propertyEdgeList)
    }

    @Test("NSObject delegate cycles and a subclass of Foundation's JSONEncoder", arguments: Optimization.allCases)
    func nsObject(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "NSObjectDelegate", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.BikeRegistry", "Fixture.MainViewController"]),
                CycleShape(members: ["Fixture.Observer", "Fixture.Subscription"]),
                CycleShape(
                    members: ["Fixture.Exporter", "Fixture.ReportEncoder"],
                    holds: ["FoundationEssentials.LockedState<()>.(private)._Buffer"]),
            ]),
            edges: [
                "Fixture.BikeRegistry —delegate→ Fixture.MainViewController",
                "Fixture.MainViewController —registry→ Fixture.BikeRegistry",
                "Fixture.Observer —token→ Fixture.Subscription",
                "Fixture.Subscription —observer→ Fixture.Observer",
                "Fixture.Exporter —encoder→ Fixture.ReportEncoder",
                "Fixture.ReportEncoder —exporter→ Fixture.Exporter",
                "Fixture.ReportEncoder —optionsLock→ FoundationEssentials.LockedState<()>.(private)._Buffer",
            ],
            edgeForm: propertyEdgeList)
    }

    @Test("actor ⇄ class, and an actor holding a closure that captures it", arguments: Optimization.allCases)
    func actors(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "ActorCycle", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Client", "Fixture.Store"]),
                CycleShape(members: ["Fixture.Ledger", "(closureContext)"], holds: ["Fixture.Auditor"]),
            ]),
            edges: [
                "Fixture.Client —store→ Fixture.Store",
                "Fixture.Store —client→ Fixture.Client",
                "Fixture.Ledger —onChange (closure)→ (closureContext)",
                "(closureContext) —capture[0]→ Fixture.Auditor",
                "(closureContext) —capture[1]→ Fixture.Ledger",
            ])
    }

    @Test("final and non-final classes, a subclass instance stored as its superclass", arguments: Optimization.allCases)
    func hierarchy(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "ClassHierarchy", optimization,
            leaking: LeakExpectation([
                CycleShape(
                    members: ["Fixture.Keeper", "(arrayStorage)", "Fixture.Puppy", "Fixture.Dog"],
                    holds: ["Fixture.Toy"]),
                CycleShape(members: ["Fixture.Kennel", "Fixture.Gate"]),
            ]),
            edges: [
                "Fixture.Keeper —pets→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Puppy",
                "Fixture.Puppy —keeper→ Fixture.Keeper",
                "Fixture.Puppy —toy→ Fixture.Toy",
                "Fixture.Puppy —mother→ Fixture.Dog",
                "Fixture.Dog —keeper→ Fixture.Keeper",
                "Fixture.Kennel —gate→ Fixture.Gate",
                "Fixture.Gate —kennel→ Fixture.Kennel",
            ])
    }

    @Test("tuple fields read through tuple metadata built in a used heap", arguments: Optimization.allCases)
    func tupleMetadata(_ optimization: Optimization) async throws {
        // On Linux a tuple element's offset is 32 bits followed by 4 bytes of padding the runtime never
        // writes: in a heap full of freed 0xAB bytes, reading the offset as a word reads garbage.
        try await checkKindFixture(
            "TupleMetadata", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Pipe", "Fixture.Sink"]),
                CycleShape(members: ["Fixture.Rack", "Fixture.Sink"], holds: ["Fixture.Sink"]),
            ]),
            edges: [
                "Fixture.Pipe —ends.sink→ Fixture.Sink",
                "Fixture.Sink —pipe→ Fixture.Pipe",
                "Fixture.Rack —slots.b→ Fixture.Sink",
                "Fixture.Rack —slots.d→ Fixture.Sink",
                "Fixture.Sink —rack→ Fixture.Rack",
            ])
    }
}
