import ArgumentParser
import CLeakGraphCLISignals
import LeakGraphGraphviz
import LeakGraphReport

/// How `leakgraph` ends for whatever a subcommand (or the parser) ended with: the message and where it
/// goes, the exit status, and the signal to die of — every error type mapped in this one place, as
/// swift-argument-parser's `MessageInfo` does, so that nothing branches on a message's text.
///
/// | error | message | exit status |
/// |---|---|---|
/// | `ExitCode` (a check's verdict, already printed) | none | its code |
/// | ``ToolError`` | `leakgraph: <message>` | 2, or the checked program's signal when it is why (`signal`) |
/// | `BaselineError`, `ReportDecodingError`, `GraphvizError` (should a subcommand let one through) | `leakgraph: <message>` | 2 |
/// | `--help`, `--version` | the text, on standard output | 0 |
/// | any other parser error (unknown option, bad value, failed validation) | argument-parser's message | 2 (argument-parser says 64) |
struct ErrorMessage {
    /// What to print, when anything.
    var text: String?
    /// Whether ``text`` goes to standard output (help and version) rather than standard error.
    var toStandardOutput = false
    /// The exit status.
    var status: Int32
    /// The signal to end with instead of ``status``.
    var signal: Int32?

    /// How the command ends for `error`.
    init(for error: any Error) {
        switch error {
        case let code as ExitCode:
            status = code.rawValue
        case let error as ToolError:
            text = "leakgraph: \(error.message)"
            status = ToolError.exitStatus
            signal = error.signal
        case let error as BaselineError:
            text = "leakgraph: cannot read the baseline: \(error)"
            status = ToolError.exitStatus
        case let error as ReportDecodingError:
            text = "leakgraph: cannot read the report: \(error.message)"
            status = ToolError.exitStatus
        case let error as GraphvizError:
            text = "leakgraph: cannot draw the memory graph: \(error.message)"
            status = ToolError.exitStatus
        default:
            let message = Leakgraph.fullMessage(for: error)
            text = message.isEmpty ? nil : message
            if Leakgraph.exitCode(for: error) == .success {
                toStandardOutput = true
                status = 0
            } else {
                status = ToolError.exitStatus
            }
        }
    }

    /// Prints the message and ends the process.
    func finish() -> Never {
        if let text {
            if toStandardOutput { print(text) } else { printError(text) }
        }
        if let signal {
            lg_cli_die_of(signal)
        }
        exitProcess(status)
    }
}
