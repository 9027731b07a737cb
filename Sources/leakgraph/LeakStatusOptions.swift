import ArgumentParser

/// `--leak-exit-code N`: the exit status of `leakgraph run` and `leakgraph test` when the checked code
/// leaks and the program (the tests) succeeded; 23 unless given (docs/exit-status.md).
struct LeakStatusOptions: ParsableArguments {
    /// The exit status when leaks are found and the program exited with 0 (the tests passed).
    @Option(
        name: .customLong("leak-exit-code"), parsing: .unconditional,
        help: ArgumentHelp(
            "Exit status when leaks are found and the program succeeded (0–255; default \(RunExitStatus.defaultLeakStatus)).",
            valueName: "n"))
    var leakExitCode = Int(RunExitStatus.defaultLeakStatus)

    /// Rejects a status out of range (a usage error, exit status 2).
    func validate() throws {
        guard RunExitStatus.leakStatusRange.contains(leakExitCode) else {
            throw ValidationError(
                "--leak-exit-code must be an exit status from \(RunExitStatus.leakStatusRange.lowerBound) to "
                    + "\(RunExitStatus.leakStatusRange.upperBound), not \(leakExitCode)")
        }
    }

    /// The status as `exit` takes it.
    var status: Int32 { Int32(leakExitCode) }
}
