import LeakGraphReport

/// How `leakgraph run` and `leakgraph test` end once the check is over: the exit status, decided from
/// the program's own status (for `test`, the test runs') and the leak verdict, and the final line on
/// standard error that states both.
///
/// | the program (the tests) | leaks outside libraries | `leakgraph run` (`test`) exits with |
/// |---|---|---|
/// | exited with 0 (passed) | none | 0 |
/// | exited with 0 (passed) | found | the leak status (23, `--leak-exit-code`) |
/// | exited with N ≠ 0 (failed: XCTest and Swift Testing exit with 1) | either | N: the program's failure wins; the final line still names the leaks |
/// | (passed, a test over its `--allocation-thresholds` count) | none | (24) |
///
/// Tool and usage errors (exit status 2) never get here (``ToolError``).
struct RunExitStatus: Equatable {
    /// The status `leakgraph run` exits with when leaks are found and the program exited with 0:
    /// LeakSanitizer's, so that it differs from the 1 test runners exit with when a test fails.
    static let defaultLeakStatus: Int32 = 23
    /// The status `leakgraph test` exits with when the tests passed without leaks but a test allocated
    /// more than its recorded count (`--allocation-thresholds`).
    static let allocationsGrewStatus: Int32 = 24
    /// The values `--leak-exit-code` accepts.
    static let leakStatusRange: ClosedRange<Int> = 0...255

    /// The status the program passed to `exit` (or returned from `main`).
    var programStatus: Int32
    /// The report's verdict.
    var verdict: LeakReport.Verdict
    /// The status for leaks found (`--leak-exit-code`).
    var leakStatus: Int32
    /// Whether a test allocated more than its recorded count (`leakgraph test --allocation-thresholds`):
    /// ``allocationsGrewStatus`` when nothing above decides the status.
    var allocationsGrew = false
    /// Whether an output could not be written: a tool error, whatever the verdict.
    var outputFailed = false
    /// The signal that ended the program after the check (it did not handle it): `leakgraph run`
    /// then ends with the same signal, after its last line.
    var signal: Int32?
    /// What ran, as the final line names it: `the program`, or `the tests` for `leakgraph test`.
    var subject = "the program"
    /// How it ended, as the final line says it (`the XCTest tests passed, the Swift Testing tests failed
    /// (exit status 1)`); `nil`: `<subject> exited with status N`.
    var ending: String?

    /// The exit status of `leakgraph run`.
    var status: Int32 {
        if outputFailed { return ToolError.exitStatus }
        if programStatus != 0 { return programStatus }
        if verdict == .leaksFound { return leakStatus }
        return allocationsGrew ? Self.allocationsGrewStatus : 0
    }

    /// Why ``status`` is what it is, in a few words.
    private var reason: String {
        if outputFailed { return "an output could not be written" }
        let ownStatus = subject.hasSuffix("s") ? "\(subject)' status" : "\(subject)'s status"
        if programStatus != 0 {
            return verdict == .leaksFound ? "\(ownStatus) wins over the leak status" : ownStatus
        }
        if verdict == .leaksFound { return "leaks found" }
        if allocationsGrew { return "no leaks; a test allocated more than its threshold" }
        return subject == "the program" ? "no leaks, the program succeeded" : "no leaks, the tests passed"
    }

    /// The last line `leakgraph run` writes: the leak verdict, where the text summary went (when
    /// `--text` named a file), the program's own status and the exit status that follows.
    ///
    /// `leakgraph: 10 leaked objects (480 bytes) in 1 root cycle; the program exited with status 0;
    /// exit status 23 (leaks found)`.
    func finalLine(_ synopsis: ReportSynopsis, textPath: String?) -> String {
        var parts = [RunExitStatus.leakSummary(synopsis)]
        if let textPath {
            parts.append("summary written to \(textPath)")
        }
        if let signal, verdict == .notChecked {
            let name = SignalDescription.name(of: signal)
            parts = ["the program crashed with \(name); no leak check ran"]
            if let textPath {
                parts.append("summary written to \(textPath)")
            }
            parts.append(outputFailed ? "exit status 2 (\(reason))" : "leakgraph ends with \(name) too")
        } else if let signal {
            let name = SignalDescription.name(of: signal)
            parts.append("the program was ended by \(name) after the check")
            parts.append(outputFailed ? "exit status 2 (\(reason))" : "leakgraph ends with \(name) too")
        } else {
            parts.append(ending ?? "\(subject) exited with status \(programStatus)")
            parts.append("exit status \(status) (\(reason))")
        }
        return "leakgraph: " + parts.joined(separator: "; ")
    }

    /// The final line without `leakgraph: ` and without where the summary went: the verdict the HTML,
    /// JUnit and SARIF outputs state (written before the outputs are, so as if they all succeed).
    func verdictText(_ synopsis: ReportSynopsis) -> String {
        String(finalLine(synopsis, textPath: nil).dropFirst("leakgraph: ".count))
    }

    /// What was leaked (``ReportSynopsis/leakSummary``).
    static func leakSummary(_ synopsis: ReportSynopsis) -> String {
        synopsis.leakSummary
    }
}
