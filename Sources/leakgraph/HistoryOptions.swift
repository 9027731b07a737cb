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
            throw ValidationError(
                "--history needs a type pattern such as `MyApp.Member`, `Member` or `App.Room*`, or `auto`, not '\(type)'"
            )
        }
        if isAuto, types.count > 1 {
            throw ValidationError(
                "--history auto finds the types itself: give it alone, not with \(types.filter { $0 != "auto" }.joined(separator: ", "))"
            )
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

    /// `--history auto`'s patterns: the first run's root cycles' member types (``LeakReport/historyPatterns``).
    static func autoPatterns(from report: LeakReport) -> [String] { report.historyPatterns }

    /// The first run's leak shapes (``LeakReport/leakShapes``).
    static func leakShapes(_ report: LeakReport) -> Set<String> { report.leakShapes }
}
