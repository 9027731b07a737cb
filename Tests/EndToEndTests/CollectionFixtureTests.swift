import LeakGraphReport
import Testing

// Collection fixtures, leaking and fixed, at -Onone and -O, under
// `leakgraph run`: exact root cycles and the labels of every reference between leaked objects.

@Suite("Reference kinds: collections", .timeLimit(.minutes(10)))
struct CollectionFixtureTests {
    @Test("Dictionary values and class keys, Set members", arguments: Optimization.allCases)
    func hashed(_ optimization: Optimization) async throws {
        // Keys are shown in value labels (`["alpha"]`, `[7]`); a class key cannot be shown, and a bucket
        // number would change from run to run (per-process hash seed), so its label is just `key`.
        try await checkKindFixture(
            "HashedCollections", optimization,
            leaking: LeakExpectation([
                CycleShape(members: ["Fixture.Cache", "(dictionaryStorage)", "Fixture.Entry", "Fixture.Entry"]),
                CycleShape(members: ["Fixture.Registry", "(dictionaryStorage)", "Fixture.Token", "Fixture.Token"]),
                CycleShape(members: ["Fixture.Index", "(dictionaryStorage)", "Fixture.Page"]),
                CycleShape(
                    members: ["Fixture.Group", "(setStorage)", "Fixture.Guest", "Fixture.Guest", "Fixture.Guest"]),
            ]),
            edges: [
                "Fixture.Cache —entries→ (dictionaryStorage)",
                "(dictionaryStorage) —[\"alpha\"]→ Fixture.Entry",
                "(dictionaryStorage) —[\"beta\"]→ Fixture.Entry",
                "Fixture.Entry —cache→ Fixture.Cache",
                "Fixture.Entry —cache→ Fixture.Cache",
                "Fixture.Registry —counts→ (dictionaryStorage)",
                "(dictionaryStorage) —key→ Fixture.Token",
                "(dictionaryStorage) —key→ Fixture.Token",
                "Fixture.Token —registry→ Fixture.Registry",
                "Fixture.Token —registry→ Fixture.Registry",
                "Fixture.Index —byNumber→ (dictionaryStorage)",
                "(dictionaryStorage) —[7]→ Fixture.Page",
                "Fixture.Page —index→ Fixture.Index",
                "Fixture.Group —guests→ (setStorage)",
                "(setStorage) —member→ Fixture.Guest",
                "(setStorage) —member→ Fixture.Guest",
                "(setStorage) —member→ Fixture.Guest",
                "Fixture.Guest —group→ Fixture.Group",
                "Fixture.Guest —group→ Fixture.Group",
                "Fixture.Guest —group→ Fixture.Group",
            ])
    }

    @Test("ArraySlice, ContiguousArray of existentials, [[Cell]], [String: [Item]]", arguments: Optimization.allCases)
    func nested(_ optimization: Optimization) async throws {
        try await checkKindFixture(
            "NestedCollections", optimization,
            leaking: LeakExpectation([
                CycleShape(counting: ["Fixture.Playlist": 1, "(arrayStorage)": 1, "Fixture.Track": 4]),
                CycleShape(counting: ["Fixture.Mixer": 1, "(arrayStorage)": 1, "Fixture.Fader": 2]),
                CycleShape(counting: ["Fixture.Grid": 1, "(arrayStorage)": 3, "Fixture.Cell": 4]),
                CycleShape(
                    counting: ["Fixture.Catalog": 1, "(dictionaryStorage)": 1, "(arrayStorage)": 2, "Fixture.Item": 3]),
            ]),
            edges: [
                // The slice keeps the whole storage: all four tracks, not only the two in the slice.
                "Fixture.Playlist —window→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Track", "(arrayStorage) —[1]→ Fixture.Track",
                "(arrayStorage) —[2]→ Fixture.Track", "(arrayStorage) —[3]→ Fixture.Track",
            ] + Array(repeating: "Fixture.Track —playlist→ Fixture.Playlist", count: 4) + [
                "Fixture.Mixer —channels→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Fader", "(arrayStorage) —[1]→ Fixture.Fader",
                "Fixture.Fader —mixer→ Fixture.Mixer", "Fixture.Fader —mixer→ Fixture.Mixer",
                "Fixture.Grid —rows→ (arrayStorage)",
                "(arrayStorage) —[0]→ (arrayStorage)", "(arrayStorage) —[1]→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Cell", "(arrayStorage) —[1]→ Fixture.Cell",
                "(arrayStorage) —[0]→ Fixture.Cell", "(arrayStorage) —[1]→ Fixture.Cell",
            ] + Array(repeating: "Fixture.Cell —grid→ Fixture.Grid", count: 4) + [
                "Fixture.Catalog —byTag→ (dictionaryStorage)",
                "(dictionaryStorage) —[\"red\"]→ (arrayStorage)", "(dictionaryStorage) —[\"blue\"]→ (arrayStorage)",
                "(arrayStorage) —[0]→ Fixture.Item", "(arrayStorage) —[1]→ Fixture.Item",
                "(arrayStorage) —[0]→ Fixture.Item",
            ] + Array(repeating: "Fixture.Item —catalog→ Fixture.Catalog", count: 3))
    }
}
