import ArgumentParser
import CLeakGraphCLISignals

/// The `leakgraph` command: finds memory leaks and retain cycles in Swift programs on Linux.
@main
struct Leakgraph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leakgraph",
        abstract: "Find memory leaks and retain cycles in Swift programs.",
        discussion: """
            Exit status of `run`: the checked program's own status when it is not 0; else 23 when leaks \
            were found (--leak-exit-code); else 0; 2 for a usage or tool error. `test` exits with 1 when the package's code leaks, 3 when \
            its tests failed, 2 for a usage or tool error, else 0. `report` exits with 0 once it has \
            rendered the report (leaks or not) and with 2 for a usage or tool error. `diff` exits with 1 \
            when the new report has new or more leaks, 2 for a usage or tool error, else 0.
            """,
        version: LeakgraphVersion.text,
        subcommands: [Run.self, Test.self, Report.self, Diff.self, Snapshot.self, Serve.self]
    )

    /// Parses the command line, runs the subcommand and exits with LeakGraph's exit statuses: usage
    /// errors exit with 2 (argument-parser's default is 64), tool errors print one `leakgraph: …` line
    /// and exit with 2.
    static func main() {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exitAfterArgumentParserError(error)
        }
        do {
            var command = command
            try command.run()
        } catch let error as ToolError {
            printError("leakgraph: \(error.message)")
            if let signal = error.signal {
                lg_cli_die_of(signal)
            }
            exitProcess(ToolError.exitStatus)
        } catch let status as ExitCode {
            exitProcess(status.rawValue)
        } catch {
            exitAfterArgumentParserError(error)
        }
    }

    /// Prints argument-parser's message for `error` (help to standard output, the rest to standard
    /// error) and exits: 0 for help, 2 for every usage error (argument-parser says 64) or unexpected error.
    private static func exitAfterArgumentParserError(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        let message = fullMessage(for: error)
        if code == .success {
            if !message.isEmpty {
                print(message)
            }
            exitProcess(0)
        }
        if !message.isEmpty {
            printError(message)
        }
        exitProcess(ToolError.exitStatus)
    }
}
