import ArgumentParser
import CLeakGraphCLISignals

/// The `leakgraph` command: finds memory leaks and retain cycles in Swift programs on Linux.
@main
struct Leakgraph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leakgraph",
        abstract: "Find memory leaks and retain cycles in Swift programs.",
        discussion: """
            Exit status of `run` and `test`: the checked program's own status when it is not 0 (for `test`: \
            the tests' status when they failed, 1); else 23 when the checked code leaks (--leak-exit-code); \
            else 0; 2 for a usage or tool error. `report` exits with 0 once it has \
            rendered the report (leaks or not) and with 2 for a usage or tool error. `diff` exits with 1 \
            when the new report has new or more leaks, 2 for a usage or tool error, else 0.
            """,
        version: LeakgraphVersion.text,
        subcommands: [Run.self, Test.self, Report.self, Diff.self, Snapshot.self, Serve.self]
    )

    /// Parses the command line, runs the subcommand and ends as ``ErrorMessage`` says for what it
    /// ended with (usage errors exit with 2, tool errors print one `leakgraph: …` line and exit with 2).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            ErrorMessage(for: error).finish()
        }
        exitProcess(0)
    }
}
