import ArgumentParser
import CLeakGraphContract

/// `leakgraph run --why TYPE`: the check at exit also says why the live objects of TYPE are alive —
/// the shortest chain of strong references from a root to each, and what holds the root.
struct WhyOptions: ParsableArguments {
    /// The types asked about: any name the report prints (`App.Cache`, `Cache`, `Signal<Int, Never>.Observer`)
    /// or a short name (`Observer`: every type whose last component is named so).
    @Option(
        name: .customLong("why"),
        help: ArgumentHelp(
            "Also say why the live objects of TYPE are alive at exit: the chain of strong references from a root (a global, a stack) to each. TYPE is any name the report prints (nested generics, with or without modules and spaces) or a short name (`Observer`: every type whose last component is named so). Repeatable.",
            valueName: "type"))
    var types: [String] = []

    /// Rejects an empty type and the separator the environment uses (a line break).
    func validate() throws {
        for type in types where type.trimmingCharacters(in: .whitespaces).isEmpty || type.contains(where: \.isNewline) {
            throw ValidationError(
                "--why needs a type name such as `MyApp.ViewController`, `Signal<Int, Never>.Observer` or `Observer`, not '\(type)'"
            )
        }
        guard types.joined(separator: "\n").utf8.count < 1024 else {
            throw ValidationError("--why: the type names together must be shorter than 1,024 bytes")
        }
    }

    /// The variables that ask the preload library for the answer (`LG_ENV_WHY`: one name a line).
    var environment: [String: String] {
        types.isEmpty ? [:] : [LG_ENV_WHY: types.joined(separator: "\n")]
    }
}
