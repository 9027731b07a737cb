import ArgumentParser
import CLeakGraphContract
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

                --allocations counts what each test allocates (by the scope each test runs in) and every \
                allocation of each run; --write-allocation-thresholds records each test's count in a file, and \
                --allocation-thresholds fails the run when a test makes more objects than recorded plus \
                --allocation-tolerance percent, naming the types and sites that grew (docs/allocations.md).

                Exit status: 1 when the package's own code leaks (known leaks of libraries, such as the \
                cycle XCTest itself leaves, are reported and marked but do not fail the run); otherwise 3 \
                when tests failed (a run's own exit status was not 0; each failing run is named with its \
                status), and before that 24 when a test allocated more than its threshold; 0 when the tests passed without leaks; 2 for a usage or tool error (not a package, \
                the build failed — its output is shown —, a test run crashed, …).
                """
        )

        /// The exit status when tests failed and the package's code did not leak: apart from 1 (leaks)
        /// and 2 (usage or tool errors), since a failing XCTest or Swift Testing run exits with 1 itself.
        static let testsFailedStatus: Int32 = 3

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

        /// Arguments for `swift build`, after `--`.
        @Argument(
            parsing: .postTerminator,
            help: ArgumentHelp("Arguments for swift build, after `--` (e.g. -c release).", valueName: "swift-build-argument")
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
                    printError("leakgraph: \(package.name) has no \(library.name) tests; skipping the \(library.name) run")
                    continue
                }
                let command = [bundle] + library.arguments
                printError("leakgraph: running the \(library.name) tests: \(command.map(ReportNaming.shellQuoted).joined(separator: " "))")
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
            let report = try baselineOptions.apply(to: LeakReport(combining: runs, program: program), baseline: baseline)
            try Run.publish(.decoded(report), to: outputs)
            for run in failed {
                printError("leakgraph: the \(run.name) tests failed (exit status \(run.report.program.exitStatus))")
            }
            let allocationsGrew = try allocationOptions.judge(report, against: thresholds)
            throw ExitCode(Test.exitStatus(for: report, testsFailed: !failed.isEmpty, allocationsGrew: allocationsGrew))
        }

        /// The exit status when a test allocated more than its recorded threshold and the package's code
        /// did not leak (`--allocation-thresholds`).
        static let allocationsGrewStatus: Int32 = 24

        /// ``exitStatus(for:testsFailed:)``, then ``allocationsGrewStatus`` when a test went over its
        /// allocation threshold (before failed tests: a test over its threshold fails the run for that
        /// reason first).
        static func exitStatus(for report: LeakReport, testsFailed: Bool, allocationsGrew: Bool) -> Int32 {
            let status = exitStatus(for: report, testsFailed: false)
            if status != 0 { return status }
            if allocationsGrew { return allocationsGrewStatus }
            return testsFailed ? testsFailedStatus : 0
        }

        /// 1 when the package's code leaks (leaks outside known library leaks), else
        /// ``testsFailedStatus`` when a run's tests failed, else 0.
        static func exitStatus(for report: LeakReport, testsFailed: Bool) -> Int32 {
            if report.leakedObjectsOutsideLibraries > 0 {
                return 1
            }
            return testsFailed ? testsFailedStatus : 0
        }
    }
}
