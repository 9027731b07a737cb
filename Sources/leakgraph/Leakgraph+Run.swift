import ArgumentParser
import CLeakGraphCLISignals
import CLeakGraphContract
import Foundation
import LeakGraphRender
import LeakGraphReport
import LeakGraphSymbolication

extension Leakgraph {
    /// `leakgraph run [--json PATH] [--text PATH] [--dot PATH] [--svg PATH] [--html PATH] [--frames N] --
    /// EXECUTABLE [ARGUMENTS…]`.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a Swift program with leak tracking and check it for leaks when it exits.",
            usage: """
                leakgraph run [--json <path>] [--text <path>] [--dot <path>] [--svg <path>] [--html <path>] \
                [--junit <path>] [--sarif <path>] [--expand] [--frames <n>] [--live-histogram] [--allocations] [--why <type>…] \
                [--history <type>… | --history auto] [--leak-exit-code <n>] [--baseline <file>] [--write-baseline <file>] [--snapshot <file>] \
                [--every <duration> [--report-dir <dir>] [--snapshot-dir <dir>] [--check-signal <signal>]] \
                [--verbose] -- <executable> [<argument> ...]
                """,
            discussion: """
                The program runs with libLeakGraphPreload.so preloaded; when it exits normally (main \
                returns or it calls exit()) every object it can no longer reach is reported, grouped by \
                root cycle. The text summary goes to standard error unless --text names a file.

                --every checks while the program runs too: each leak confirmed by a second walk is \
                reported once, on standard error and, with --report-dir, as a JSON report in that \
                folder, and every check appends a line to checks.jsonl there (pause, live and leaked \
                objects and bytes, each leak's count); the check signal (SIGUSR2 unless --check-signal \
                says otherwise), sent to leakgraph or to the program, asks for a check now. SIGINT, \
                SIGTERM, SIGHUP and SIGQUIT sent to leakgraph are forwarded to the program, even when \
                leakgraph was started with them ignored (the program then starts with them ignored, as \
                without leakgraph); one it does not handle ends it after a final check, whose report is \
                marked with the signal, and leakgraph then ends with the same signal. A program that \
                crashes leaves a report marked crashed (its signal and stack, no leak check).

                --dot, --svg and --html draw the leaked objects as memory graphs (laid out in-process \
                with libgvc). With one root cycle PATH gets its graph; with several, PATH gets an \
                overview and each cycle its own file, PATH with -cycle-N before the extension \
                (ring.svg → ring-cycle-1.svg, …). The HTML report is one self-contained file.

                --allocations counts every Swift heap object the program makes, from before main to the \
                exit check, by type and creation site: objects and bytes made and how many are still alive at \
                exit (docs/allocations.md).

                --snapshot writes a heap snapshot at exit from the same walk: every live object and \
                reference, the roots and what holds them (docs/snapshots.md); with --every, \
                --snapshot-dir keeps one per check. Read them with `leakgraph snapshot` or \
                `leakgraph serve`.

                --history TYPE records every retain and release of the objects of TYPE (a baseline type \
                pattern), and the report names where each strong reference into a leaked one was stored \
                (under the suspect: Stored at Member.swift:14 in Member.join(_:)), or says it is not \
                known, with the candidates. --history auto runs the program twice: the first run's \
                leaked cycles give the types, the second records them (and says so when it did not leak \
                the same way).

                --baseline accepts the leaks a baseline file lists (by fingerprint, type or creation \
                site): they stay in the report, marked suppressed, and do not fail the run. \
                --write-baseline writes one accepting this run's leaks (docs/baselines.md).

                Exit status: the program's own status when it is not 0 (a failing program wins, leaks \
                or not); else 23 when leaks were found (--leak-exit-code sets it; known leaks of \
                libraries such as XCTest's own and leaks a baseline accepts are reported but do not fail \
                the run); else 0. 2 for a \
                usage or tool error (missing executable, statically linked Swift runtime, an output \
                that cannot be written, …). The last line on standard error states the leak verdict, the \
                program's status and the exit status (docs/exit-status.md).
                """
        )

        /// The number of creation-stack frames recorded when `--frames` is not given (`LG_FRAMES_DEFAULT`).
        static let defaultFrames = Int(LG_FRAMES_DEFAULT)
        /// The accepted range of `--frames` (the hook records at most `LG_FRAMES_LIMIT` frames).
        static let framesRange = 0...Int(LG_FRAMES_LIMIT)

        /// Where the report goes (`--json`, `--text`, `--dot`, `--svg`, `--html`).
        @OptionGroup var outputs: OutputOptions

        /// The help of `--frames`, shared with `leakgraph test`.
        static let framesHelp = ArgumentHelp(
            "Creation-stack frames to record per object (0–\(LG_FRAMES_LIMIT); 0 records none).", valueName: "n")

        /// How many creation-stack frames the preload library records per object (`LEAKGRAPH_FRAMES`).
        @Option(parsing: .unconditional, help: Run.framesHelp)
        var frames: Int = Run.defaultFrames

        /// Whether the report counts every live object by type (`liveTypes`, for `leakgraph diff`).
        @Flag(
            name: .customLong("live-histogram"),
            help: "Also count every live object at exit by type, in the JSON report (for `leakgraph diff`).")
        var liveHistogram = false

        /// Whether the report carries the allocation profile (`allocations`, `LEAKGRAPH_ALLOCATIONS`).
        @Flag(
            name: .customLong("allocations"),
            help: ArgumentHelp(
                "Also count every Swift allocation by type and creation site: objects and bytes made, still alive at exit "
                    + "(the most allocating sites in the text, every one in the JSON and HTML; compare two with `leakgraph diff`)."
            ))
        var allocations = false

        /// The exit status when leaks are found and the program exited with 0 (`--leak-exit-code`).
        @OptionGroup var leakStatus: LeakStatusOptions

        /// Checks while the program runs (`--every`, `--report-dir`, `--check-signal`).
        @OptionGroup var monitor: MonitorOptions

        /// Types whose live objects the report explains (`--why`).
        @OptionGroup var why: WhyOptions

        /// Types whose retains and releases are recorded (`--history`).
        @OptionGroup var history: HistoryOptions

        /// The heap snapshot at exit (`--snapshot`).
        @OptionGroup var snapshot: SnapshotOptions

        /// The accepted leaks (`--baseline`, `--write-baseline`).
        @OptionGroup var baselineOptions: BaselineOptions

        /// The program and its arguments, passed to it exactly.
        @Argument(
            parsing: .remaining,
            help: ArgumentHelp("The program to check and its arguments, after `--`.", valueName: "executable")
        )
        var command: [String] = []

        /// Rejects a missing program and a `--frames` value out of range (usage errors, exit status 2).
        func validate() throws {
            guard !command.isEmpty else {
                throw ValidationError("Missing the program to run: leakgraph run [options] -- EXECUTABLE [ARGUMENTS…]")
            }
            try Run.validate(frames: frames)
        }

        /// Rejects a `--frames` value out of ``framesRange`` (a usage error, exit status 2).
        static func validate(frames: Int) throws(ValidationError) {
            guard Run.framesRange.contains(frames) else {
                throw ValidationError(
                    "--frames must be between \(Run.framesRange.lowerBound) and \(Run.framesRange.upperBound), not \(frames)"
                )
            }
        }

        /// Checks the program, runs it with the preload library, and publishes the report.
        /// - Throws: ``ToolError`` for tool errors; `ExitCode` to end with the exit status.
        func run() throws {
            let environment = currentEnvironment()
            let name = command[0]
            let executable = try ExecutableLocator.resolve(name, searchPath: environment["PATH"])
            try SwiftPMCommandGuidance.check(command: command, executable: executable)
            let script = FollowedProcesses.isScript(executable)
            if script {
                guard monitor.every == nil else {
                    throw ToolError(
                        "--every checks one program; run the Swift program directly, not the script \(executable)")
                }
                guard snapshot.path == nil else {
                    throw ToolError(
                        "--snapshot takes one program's heap; run the Swift program directly, not the script \(executable)"
                    )
                }
            } else {
                try RuntimeLinkageCheck.check(
                    executable, linkage: SwiftRuntimeLinkage.inspect(executableAt: executable))
            }
            let preloadLibrary = try PreloadLibraryLocator.locate(environment: environment)
            try outputs.checkWritable()
            let snapshotPath = try snapshot.checkedPath()
            let baseline = try baselineOptions.load()

            let workspace = try ReportWorkspace.create(environment: environment)
            defer { workspace.remove() }
            var childEnvironment = environment.merging(why.environment) { _, why in why }
                .merging(SnapshotOptions.environment(snapshotPath)) { _, snapshot in snapshot }
            // `--verbose` (OutputOptions): the check at exit also says how long each of its steps took.
            if outputs.verbose {
                childEnvironment[LG_ENV_VERBOSE] = "1"
            }
            childEnvironment[LG_ENV_ALLOCATIONS] = allocations ? "1" : nil
            let checkSignal = monitor.every == nil ? 0 : try monitor.signalNumber()
            if script, history.isAuto {
                throw ToolError(
                    "--history auto runs one program twice; run the Swift program directly, not the script \(executable)"
                )
            }
            var firstRun: LeakReport?
            if history.isAuto {
                // The first run finds the leaked cycles' types; the second records them (and alone writes
                // the snapshot, if one is asked).
                let first = try Run.historyAutoFirstRun(
                    executable: executable, command: command, frames: frames, preloadLibrary: preloadLibrary,
                    environment: childEnvironment.filter { $0.key != LG_ENV_SNAPSHOT }, environmentRoot: environment)
                let patterns = first.map(HistoryOptions.autoPatterns(from:)) ?? []
                if patterns.isEmpty {
                    printError(
                        "leakgraph: --history auto: the first run leaked no cycle of named types; running once more without history"
                    )
                } else {
                    printError(
                        "leakgraph: --history auto: recording \(patterns.joined(separator: ", ")) in a second run")
                    firstRun = first
                }
                childEnvironment.merge(HistoryOptions.environment(patterns)) { _, history in history }
            } else {
                childEnvironment.merge(HistoryOptions.environment(history.types)) { _, history in history }
            }
            let check =
                script
                ? try FollowedProcesses.check(
                    executable: executable, command: command, frames: frames, preloadLibrary: preloadLibrary,
                    environment: childEnvironment, liveTypes: liveHistogram, in: workspace)
                : try Run.check(
                    executable: executable, command: command, frames: frames, preloadLibrary: preloadLibrary,
                    environment: childEnvironment.merging(try monitor.environment()) { _, monitor in monitor },
                    rendering: baselineOptions.isEmpty && firstRun == nil
                        ? ChildRendering(for: outputs) : ChildRendering(),
                    liveTypes: liveHistogram, checkSignal: checkSignal, in: workspace)
            if let firstRun {
                Run.compareHistoryRuns(first: firstRun, second: check, workspace: workspace)
            }
            let judged = try baselineOptions.apply(to: check, baseline: baseline)
            let synopsis = judged.synopsis
            var exit = RunExitStatus(
                programStatus: Int32(truncatingIfNeeded: synopsis.program.exitStatus), verdict: judged.verdict,
                leakStatus: leakStatus.status)
            exit.signal = synopsis.program.signal.flatMap(SignalDescription.number(named:))
            let context = RenderContext(
                command: (["leakgraph", "run"] + CommandLine.arguments.dropFirst(2)).map(ReportNaming.shellQuoted)
                    .joined(separator: " "),
                verdict: exit.verdictText(synopsis), exitStatus: exit.status,
                sourceRoot: FileManager.default.currentDirectoryPath)
            var textPath = outputs.textPath
            if let snapshotPath, let failure = Run.snapshotFailure(in: workspace, check: judged, path: snapshotPath) {
                printError("leakgraph: \(failure)")
                exit.outputFailed = true
            }
            do throws(ToolError) {
                try Run.publish(judged, to: outputs, summarize: false, context: context)
            } catch {
                printError("leakgraph: \(error.message)")
                exit.outputFailed = true
                if error.code == .textSummaryNotWritten {
                    textPath = nil  // the summary went to the terminal instead
                }
            }
            printError(exit.finalLine(synopsis, textPath: textPath))
            if let signal = exit.signal, !exit.outputFailed {
                lg_cli_die_of(signal)
            }
            throw ExitCode(exit.status)
        }

        /// Runs `executable` (`command[0]` is the name it is given, the rest its arguments) with the
        /// preload library, waits for it, and returns what it left: the one run `leakgraph run` makes
        /// and `leakgraph test` makes once per test library. `rendering` says what the program renders
        /// itself (nothing: the CLI decodes the report). The files it rendered stay in `workspace`, which
        /// the caller removes after publishing them. `checkSignal` (0: none) sent to `leakgraph` is
        /// forwarded to the program, as the termination signals are.
        /// - Throws: ``ToolError`` when the program cannot be started, crashed, or left no readable report.
        static func check(
            executable: String, command: [String], frames: Int, preloadLibrary: String, environment: [String: String],
            rendering: ChildRendering, liveTypes: Bool = false, checkSignal: Int32 = 0, in workspace: ReportWorkspace
        ) throws(ToolError) -> FinishedCheck {
            // The program's creation stacks are symbolized here, not in its memory (`LEAKGRAPH_SYMBOLIZER=`,
            // empty, has the program symbolize them itself: the same frames, for comparison).
            let symbolization =
                environment[LG_ENV_SYMBOLIZER] == "" ? nil : CheckSymbolization.start(in: workspace)
            defer { symbolization?.stop() }
            let childEnvironment = ChildEnvironment(
                inheriting: environment, preloadLibrary: try workspace.preloadablePath(for: preloadLibrary),
                reportPath: workspace.reportPath,
                frames: frames, program: executable, rendering: rendering, liveTypes: liveTypes,
                testObserver: PreloadLibraryLocator.testObserver(besidePreloadLibrary: preloadLibrary),
                symbolizer: symbolization?.path
            )
            let termination = try ChildProcess.run(
                path: executable, arguments: command, environment: childEnvironment.entries, checkSignal: checkSignal
            )
            return try Run.finishedCheck(
                in: workspace, asked: rendering, termination: termination, program: executable,
                arguments: Array(command.dropFirst())
            )
        }

        /// Why the snapshot `--snapshot` asked for is not at `path`, or `nil` when it was written: the
        /// program's own sentence, or the crash that left no snapshot.
        static func snapshotFailure(in workspace: ReportWorkspace, check: FinishedCheck, path: String) -> String? {
            if let data = FileManager.default.contents(atPath: workspace.reportPath + LG_REPORT_SNAPSHOT_ERROR_SUFFIX) {
                return String(decoding: data, as: UTF8.self)
            }
            if case .decoded(let report) = check, report.crash != nil {
                return "no snapshot was written to \(path): the program crashed before its check at exit"
            }
            return FileManager.default.fileExists(atPath: path) ? nil : "no snapshot was written to \(path)"
        }

        /// Turns what the preload library left and how the program ended into the check's result: the
        /// files the program rendered when they are exactly those of this run, else the decoded report.
        /// - Throws: ``ToolError`` when there is no report to give (crash, refusal, nothing written,
        ///   unreadable file).
        static func finishedCheck(
            in workspace: ReportWorkspace, asked: ChildRendering, termination: Termination, program: String,
            arguments: [String]
        ) throws(ToolError) -> FinishedCheck {
            let outcome = workspace.outcome()
            if case .hookRefused(let sentence) = outcome {
                throw ToolError(sentence)
            }
            let status: Int32
            var signalName: String?
            switch termination {
            case .signaled(let signal):
                if let crash = CrashFile.read(in: workspace) {
                    let facts = LeakReport.Program(
                        path: program, arguments: arguments, exitStatus: 128 + Int(signal),
                        signal: SignalDescription.name(of: signal))
                    return .decoded(crash.report(program: facts))
                }
                guard outcome == .report else {
                    throw ToolError(SignalDescription.terminationMessage(signal: signal), signal: signal)
                }
                // The program did not handle the signal: the preload library checked, then it died of it.
                status = 128 + signal
                signalName = SignalDescription.name(of: signal)
            case .exited(let code):
                status = code
            }
            guard outcome == .report else {
                throw ToolError(
                    "the program exited with status \(status) but no leak report was written "
                        + "(it called _exit, or the leak check failed)"
                )
            }
            let facts = LeakReport.Program(
                path: program, arguments: arguments, exitStatus: Int(status), signal: signalName)
            if let rendered = workspace.renderedFiles(for: facts, asked: asked) {
                return .rendered(rendered)
            }
            let data = try workspace.reportData()
            var report: LeakReport
            do {
                report = try LeakReport.decode(from: data)
            } catch {
                throw ToolError("cannot read the leak report the program wrote: \(error)")
            }
            report.program = facts
            return .decoded(report)
        }

        /// Writes the JSON report, the text summary (to standard error unless `--text` names a file) and the
        /// graphs where `outputs` say; with `summarize`, a one-line summary on standard error when the text
        /// went to a file (`leakgraph test`; `leakgraph run` ends with ``RunExitStatus/finalLine(_:textPath:)``).
        static func publish(
            _ check: FinishedCheck, to outputs: OutputOptions, summarize: Bool = true,
            context: RenderContext = RenderContext()
        ) throws(ToolError) {
            let terminal = { (text: String) in writeToStandardError(text.hasSuffix("\n") ? text : text + "\n") }
            let summary = summarize ? { (line: String) in printError(line) } : { (_: String) in }
            switch check {
            case .rendered(let files):
                try outputs.write(files, terminal: terminal, summarize: summary)
            case .decoded(let report):
                try outputs.write(report, context: context, terminal: terminal, summarize: summary)
            }
        }
    }
}
