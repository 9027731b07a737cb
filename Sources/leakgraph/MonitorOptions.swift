import ArgumentParser
import CLeakGraphContract
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `leakgraph run --every D [--report-dir DIR] [--check-signal SIG]`: periodic leak checks in the
/// running program (a `LeakMonitor` the preload library starts), handed over in `LG_ENV_MONITOR_*`.
struct MonitorOptions: ParsableArguments {
    /// The interval between checks: `10s`, `500ms`, `2m`, `1h` (a bare number is seconds).
    @Option(
        name: .customLong("every"),
        help: ArgumentHelp(
            "Also check while the program runs, every <duration> (500ms, 10s, 2m, 1h); new leaks go to standard error and --report-dir.",
            valueName: "duration"))
    var every: String?

    /// Where the monitor writes the JSON report of each check that found new leaks.
    @Option(
        name: .customLong("report-dir"),
        help: ArgumentHelp(
            "With --every: write each new leak's JSON report into this folder (the newest \(LG_MONITOR_KEPT_REPORTS) kept).",
            valueName: "dir"))
    var reportDirectory: String?

    /// Where every check also writes a heap snapshot.
    @Option(
        name: .customLong("snapshot-dir"),
        help: ArgumentHelp(
            "With --every: also write a heap snapshot of every check (and of each check the signal asks for) into this folder (the newest \(LG_MONITOR_KEPT_SNAPSHOTS) kept).",
            valueName: "dir"))
    var snapshotDirectory: String?

    /// The signal that asks for a check now.
    @Option(
        name: .customLong("check-signal"),
        help: ArgumentHelp(
            "With --every: the signal that asks for a check now (USR1, USR2, HUP, WINCH, a number from 1 to 64, or none; default USR2).",
            valueName: "signal"))
    var checkSignal: String?

    /// The interval in milliseconds, `nil` without `--every`.
    func intervalMilliseconds() throws(ValidationError) -> Int? {
        guard let every else { return nil }
        let units: [(suffix: String, milliseconds: Double)] = [
            ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000),
        ]
        let unit = units.first { every.hasSuffix($0.suffix) } ?? ("", 1_000)
        guard let value = Double(every.dropLast(unit.suffix.count)), value > 0,
            value * unit.milliseconds >= 1, value * unit.milliseconds <= Double(LG_MONITOR_INTERVAL_LIMIT)
        else {
            throw ValidationError("--every takes a duration from 1ms to 24h such as 500ms, 10s or 2m, not '\(every)'")
        }
        return Int(value * unit.milliseconds)
    }

    /// The signal number, 0 for `none`.
    func signalNumber() throws(ValidationError) -> Int32 {
        let checkSignal = self.checkSignal ?? "USR2"
        let name = checkSignal.uppercased()
        if name == "NONE" { return 0 }
        let named: [String: Int32] = ["USR1": SIGUSR1, "USR2": SIGUSR2, "HUP": SIGHUP, "WINCH": SIGWINCH]
        if let number = named[name.hasPrefix("SIG") ? String(name.dropFirst(3)) : name] { return number }
        if let number = Int32(checkSignal), (1...64).contains(number), ![SIGKILL, SIGSTOP].contains(number) {
            return number
        }
        throw ValidationError(
            "--check-signal takes USR1, USR2, HUP, WINCH, a signal number or none, not '\(checkSignal)'")
    }

    /// Rejects a bad duration or signal, and monitor options without `--every` (usage errors).
    func validate() throws {
        _ = try signalNumber()
        if try intervalMilliseconds() == nil, reportDirectory != nil {
            throw ValidationError(
                "--report-dir needs --every: it is where the checks made while the program runs write")
        }
        if try intervalMilliseconds() == nil, snapshotDirectory != nil {
            throw ValidationError(
                "--snapshot-dir needs --every: it keeps a snapshot of each check made while the program runs (--snapshot FILE takes one at exit)"
            )
        }
        if try intervalMilliseconds() == nil, checkSignal != nil {
            throw ValidationError(
                "--check-signal needs --every: it asks the checks made while the program runs for one now")
        }
    }

    /// The `LG_ENV_MONITOR_*` variables, empty without `--every`. The folder is made absolute.
    func environment() throws(ValidationError) -> [String: String] {
        guard let interval = try intervalMilliseconds() else { return [:] }
        var variables = [LG_ENV_MONITOR_INTERVAL: String(interval), LG_ENV_MONITOR_SIGNAL: String(try signalNumber())]
        func absolute(_ path: String) -> String {
            path.hasPrefix("/")
                ? path
                : URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
                    .standardizedFileURL.path
        }
        if let reportDirectory {
            variables[LG_ENV_MONITOR_DIRECTORY] = absolute(reportDirectory)
        }
        if let snapshotDirectory {
            variables[LG_ENV_MONITOR_SNAPSHOT_DIRECTORY] = absolute(snapshotDirectory)
        }
        return variables
    }
}
