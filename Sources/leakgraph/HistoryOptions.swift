import ArgumentParser
import CLeakGraphContract
import LeakGraphReport

/// `leakgraph run --history TYPE…` and `--history auto`: record every strong retain and release of the
/// objects of those types, so that the report names where each strong reference into a leaked one was
/// stored (`Stored at Member.swift:14 in Member.join(_:)`).
struct HistoryOptions: ParsableArguments {
    /// Type patterns as in baseline `type:` entries (`Member`, `App.Room*`), or `auto`.
    @Option(
        name: .customLong("history"),
        help: ArgumentHelp(
            "Record every retain and release of the objects of TYPE (a baseline type pattern: `Member`, `App.Room*`; repeatable) to name where each reference into a leaked one was stored. `auto` runs the program twice: once to find the leaked cycles' types, once recording them.",
            valueName: "type"))
    var types: [String] = []

    /// Whether `--history auto` was given.
    var isAuto: Bool { types.contains("auto") }

    /// Rejects an empty pattern, the separator the environment uses, `auto` with types, and too long a list.
    func validate() throws {
        for type in types where type.allSatisfy({ $0 == " " }) || type.contains(",") || type.contains("\n") {
            throw ValidationError("--history needs a type pattern such as `MyApp.Member`, `Member` or `App.Room*`, or `auto`, not '\(type)'")
        }
        if isAuto, types.count > 1 {
            throw ValidationError("--history auto finds the types itself: give it alone, not with \(types.filter { $0 != "auto" }.joined(separator: ", "))")
        }
        guard types.joined(separator: ",").utf8.count < 4096 else {
            throw ValidationError("--history: the type patterns together must be shorter than 4,096 bytes")
        }
    }

    /// The variables that ask the preload library to record histories (`LG_ENV_HISTORY`), for the given
    /// patterns (the options' own unless `auto` found others).
    static func environment(_ patterns: [String]) -> [String: String] {
        patterns.isEmpty ? [:] : [LG_ENV_HISTORY: patterns.joined(separator: ",")]
    }

    /// `--history auto`'s patterns: the type of every member of the report's root cycles (not known library
    /// leaks), each exactly (a `*` or `?` in a name stands for itself only where no other name could match).
    static func autoPatterns(from report: LeakReport) -> [String] {
        var types: [String] = []
        for cycle in report.cycles where cycle.knownLibraryLeak == nil {
            for member in cycle.members where report.leaks.indices.contains(member) {
                let type = report.leaks[member].type
                // Standard library storage (`Swift._ContiguousArrayStorage<…>`) is every array's: left out.
                if !type.hasPrefix("("), !type.hasPrefix("Swift."), !types.contains(type) { types.append(type) }
            }
        }
        return types
    }

    /// The fingerprints of the report's root cycles that are not known library leaks: the shape a second
    /// run must leak again for `--history auto` to mean anything.
    static func leakShapes(_ report: LeakReport) -> Set<String> {
        Set(report.cycles.filter { $0.knownLibraryLeak == nil }.map { $0.fingerprint ?? "cycle \($0.id)" })
    }
}
