import ArgumentParser
import CLeakGraphContract

/// `leakgraph run --why TYPE`: the check at exit also says why the live objects of TYPE are alive —
/// the shortest chain of strong references from a root to each, and what holds the root.
struct WhyOptions: ParsableArguments {
    /// The types asked about, full (`App.Cache`) or without the module (`Cache`).
    @Option(
        name: .customLong("why"),
        help: ArgumentHelp(
            "Also say why the live objects of TYPE are alive at exit: the chain of strong references from a root (a global, a stack) to each (repeatable).",
            valueName: "type"))
    var types: [String] = []

    /// Rejects an empty type and the separator the environment uses.
    func validate() throws {
        for type in types where type.trimmingCharacters(in: .whitespaces).isEmpty || type.contains(",") {
            throw ValidationError("--why needs a type name such as `MyApp.ViewController` or `ViewController`, not '\(type)'")
        }
        guard types.joined(separator: ",").utf8.count < 1024 else {
            throw ValidationError("--why: the type names together must be shorter than 1,024 bytes")
        }
    }

    /// The variables that ask the preload library for the answer (`LG_ENV_WHY`).
    var environment: [String: String] {
        types.isEmpty ? [:] : [LG_ENV_WHY: types.joined(separator: ",")]
    }
}
