import ArgumentParser
import CLeakGraphContract
import LeakGraphRender
import LeakGraphReport
import LeakGraphSymbolication

extension Leakgraph {
    /// `leakgraph test [--package-path P] [--scratch-path S] [output options] [--frames N] [-- SWIFT BUILD
    /// ARGUMENTS…]`: builds a package's tests, runs its XCTest and its Swift Testing tests under the
    /// preload library (as `leakgraph run` does, once per library), and prints one combined report.
    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a package's tests, run its XCTest and Swift Testing tests with leak tracking, and report.",
            usage: """
                leakgraph test [--package-path <path>] [--scratch-path <path>] [--json <path>] [--text <path>] \
                [--dot <path>] [--svg <path>] [--html <path>] [--frames <n>] [--baseline <file>] [--write-baseline <file>] \
                [--allocations] [--allocation-thresholds <file>] [--write-allocation-thresholds <file>] \
                [--allocation-tolerance <percent>] \
                [-- <swift build argument> ...]
                """,
            discussion: """
                    Builds the tests with `swift build --build-tests` (in the package's own .build unless \
                    --scratch-path names another build directory; arguments after `--` go to swift build, e.g. \
                    `-- -c release`), then runs the …PackageTests.xctest bundle twice with libLeakGraphPreload.so \
                    preloaded: once as it is (its XCTest tests) and once with `--testing-library swift-testing` \
                    (its Swift Testing tests). A library with no tests in the bundle (from the bundle's \
                    --list-tests) is skipped with one line. The two reports are printed as one; each root cycle \
                    says which run it was found in. Output options work as for `leakgraph run`.

                    --allocations counts what each test allocates (by the test scope each test runs in) and every \
                    allocation of each run; --write-allocation-thresholds records each test's count in a file, and \
                    --allocation-thresholds fails the run when a test makes more objects than recorded plus \
                    --allocation-tolerance percent, naming the types and sites that grew (docs/allocations.md).

                    Exit status: the tests' own status when they failed (XCTest and Swift Testing exit with 1; \
                    the last line names each run and its status); else 23 when the package's code leaks \
                    (--leak-exit-code; known leaks of libraries, such as the cycle XCTest itself leaves, and leaks a \
                    baseline accepts are reported but do not fail the run); else 24 when a test allocated more than \
                    its --allocation-thresholds count; else 0. 2 for a usage or tool error (not \
                    a package, the build failed — its output is shown —, a test run crashed, …). The last line on \
                    standard error states the leak verdict, how the tests ended and the exit status \
                    (docs/exit-status.md).
                """
        )

        /// The package to test.
        @Option(help: ArgumentHelp("The package to test (default: the current directory).", valueName: "path"))
        var packagePath: String = "."

        /// The build directory for `swift build`, when not the package's own `.build`.
        @Option(
            help: ArgumentHelp(
                "The build directory (swift build --scratch-path; default: the package's .build).", valueName: "path"))
        var scratchPath: String?

        /// Where the combined report goes (`--json`, `--text`, `--dot`, `--svg`, `--html`).
        @OptionGroup var outputs: OutputOptions

        /// How many creation-stack frames the preload library records per object.
        @Option(parsing: .unconditional, help: Run.framesHelp)
        var frames: Int = Run.defaultFrames

        /// The accepted leaks (`--baseline`, `--write-baseline`).
        @OptionGroup var baselineOptions: BaselineOptions

        /// Per-test allocation counts and their thresholds (`--allocations`, `--allocation-thresholds`, …).
        @OptionGroup var allocationOptions: AllocationThresholdOptions

        /// The exit status when the package's code leaks and the tests passed (`--leak-exit-code`).
        @OptionGroup var leakStatus: LeakStatusOptions

        /// Arguments for `swift build`, after `--`.
        @Argument(
            parsing: .postTerminator,
            help: ArgumentHelp(
                "Arguments for swift build, after `--` (e.g. -c release).", valueName: "swift-build-argument")
        )
        var buildArguments: [String] = []

        /// Rejects a `--frames` value out of range (a usage error, exit status 2).
        func validate() throws {
            try Run.validate(frames: frames)
        }

        /// Builds the tests, runs each testing library's tests under the preload library, and publishes the
        /// combined report.
        /// - Throws: ``ToolError`` for tool errors; `ExitCode` to end with the exit status.
        func run() throws {
            let environment = currentEnvironment()
            let preloadLibrary = try PreloadLibraryLocator.locate(environment: environment)
            try outputs.checkWritable()
            let baseline = try baselineOptions.load()
            let thresholds = try allocationOptions.load()
            let package = try PackageTestBuild(
                packagePath: packagePath, scratchPath: scratchPath, extraArguments: buildArguments)
            let bundle = try package.build(environment: environment)
            try RuntimeLinkageCheck.check(bundle, linkage: SwiftRuntimeLinkage.inspect(executableAt: bundle))

            var runs: [LeakReport.NamedRun] = []
            for library in TestLibrary.allCases {
                if library.testCount(bundle: bundle, environment: environment) == 0 {
                    printError(
                        "leakgraph: \(package.name) has no \(library.name) tests; skipping the \(library.name) run")
                    continue
                }
                let command = [bundle] + library.arguments
                printError(
                    "leakgraph: running the \(library.name) tests: \(command.map(ReportNaming.shellQuoted).joined(separator: " "))"
                )
                do throws(ToolError) {
                    let workspace = try ReportWorkspace.create(environment: environment)
                    defer { workspace.remove() }
                    var runEnvironment = environment
                    runEnvironment[LG_ENV_ALLOCATIONS] = allocationOptions.isCounting ? "1" : nil
                    let check = try Run.check(
                        executable: bundle, command: command, frames: frames, preloadLibrary: preloadLibrary,
                        environment: runEnvironment, rendering: ChildRendering(), in: workspace)
                    guard case .decoded(let report) = check else {
                        throw ToolError("the report was rendered by the program instead of decoded")
                    }
                    if let crash = report.crash {
                        throw ToolError("the tests crashed with \(crash.signal); no leak check ran")
                    }
                    runs.append(LeakReport.NamedRun(name: library.name, report: report))
                } catch {
                    throw ToolError("the \(library.name) run: \(error.message)")
                }
            }
            guard !runs.isEmpty else {
                throw ToolError("\(package.name) has neither XCTest nor Swift Testing tests")
            }
            let failed = runs.filter { $0.report.program.exitStatus != 0 }
            let program = LeakReport.Program(
                path: bundle, arguments: [], exitStatus: failed.first?.report.program.exitStatus ?? 0)
            let report = try baselineOptions.apply(
                to: LeakReport(combining: runs, program: program), baseline: baseline)
            var exit = RunExitStatus(
                programStatus: Int32(truncatingIfNeeded: program.exitStatus), verdict: report.verdict,
                leakStatus: leakStatus.status)
            exit.subject = "the tests"
            exit.ending = Test.ending(of: runs)
            exit.allocationsGrew = try allocationOptions.judge(report, against: thresholds)
            let synopsis = ReportSynopsis(report)
            let context = RenderContext(
                command: (["leakgraph", "test"] + CommandLine.arguments.dropFirst(2)).map(ReportNaming.shellQuoted)
                    .joined(separator: " "),
                verdict: exit.verdictText(synopsis), exitStatus: exit.status, sourceRoot: package.packagePath)
            var textPath = outputs.textPath
            do throws(ToolError) {
                try Run.publish(.decoded(report), to: outputs, summarize: false, context: context)
            } catch {
                printError("leakgraph: \(error.message)")
                exit.outputFailed = true
                if error.code == .textSummaryNotWritten {
                    textPath = nil  // the summary went to the terminal instead
                }
            }
            printError(exit.finalLine(synopsis, textPath: textPath))
            throw ExitCode(exit.status)
        }

        /// How the runs ended, for the last line: `the XCTest tests passed, the Swift Testing tests
        /// failed (exit status 1)`.
        static func ending(of runs: [LeakReport.NamedRun]) -> String {
            runs.map { run in
                let status = run.report.program.exitStatus
                return "the \(run.name) tests " + (status == 0 ? "passed" : "failed (exit status \(status))")
            }.joined(separator: ", ")
        }
    }
}
