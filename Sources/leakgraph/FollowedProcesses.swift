import CLeakGraphContract
import Foundation
import LeakGraphReport

/// `leakgraph run SCRIPT`: a script (a file starting with `#!`) is run with the preload library
/// inherited by every process it starts (`LG_ENV_FOLLOW`). Each process that uses the Swift runtime
/// writes its own report into one folder; this gathers them into the one report `leakgraph run`
/// publishes.
enum FollowedProcesses {
    /// Whether `path` is a script: a file whose first two bytes are `#!`.
    static func isScript(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 2)) ?? Data()
        return start == Data("#!".utf8)
    }

    /// The folder in `workspace` where the followed processes write (created).
    /// - Throws: ``ToolError`` when it cannot be created.
    static func directory(in workspace: ReportWorkspace) throws(ToolError) -> String {
        let path = workspace.directory + "/followed"
        guard mkdir(path, 0o700) == 0 else {
            throw ToolError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }

    /// Runs the script `executable` with every Swift process it starts checked, and gathers their
    /// reports into one: each process's report as a run named `NAME (pid N)`, the script as the
    /// program (its path, arguments and exit status).
    /// - Throws: ``ToolError`` when the script cannot be started, a signal ended it, or no Swift
    ///   process it started wrote a report.
    static func check(
        executable: String, command: [String], frames: Int, preloadLibrary: String, environment: [String: String],
        liveTypes: Bool, in workspace: ReportWorkspace
    ) throws(ToolError) -> FinishedCheck {
        let folder = try directory(in: workspace)
        var childEnvironment = ChildEnvironment(
            inheriting: environment, preloadLibrary: try workspace.preloadablePath(for: preloadLibrary),
            reportPath: folder, frames: frames,
            program: nil, liveTypes: liveTypes,
            testObserver: PreloadLibraryLocator.testObserver(besidePreloadLibrary: preloadLibrary))
        childEnvironment.variables[LG_ENV_FOLLOW] = "1"
        let termination = try ChildProcess.run(
            path: executable, arguments: command, environment: childEnvironment.entries)
        guard case .exited(let status) = termination else {
            if case .signaled(let signal) = termination {
                throw ToolError(SignalDescription.terminationMessage(signal: signal))
            }
            throw ToolError("the script ended in an unknown way")
        }
        let program = LeakReport.Program(
            path: executable, arguments: Array(command.dropFirst()), exitStatus: Int(status))
        return .decoded(try gather(folder, program: program))
    }

    /// Reads every report in `folder`, in pid order, and combines them. Refusals (`.error` files) are
    /// printed as `leakgraph: process N: …` lines; they fail the run only when no report was written.
    static func gather(_ folder: String, program: LeakReport.Program) throws(ToolError) -> LeakReport {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        func pid(_ name: String) -> Int? {
            guard name.hasPrefix(LG_FOLLOW_REPORT_PREFIX) else { return nil }
            return Int(name.dropFirst(LG_FOLLOW_REPORT_PREFIX.count).prefix { $0.isNumber })
        }
        var refusals: [String] = []
        for name in names.filter({ $0.hasSuffix(".json" + LG_REPORT_ERROR_SUFFIX) }).sorted(by: {
            (pid($0) ?? 0) < (pid($1) ?? 0)
        }) {
            let text = (try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? ""
            let sentence = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "no reason given"
            refusals.append("process \(pid(name) ?? 0): \(sentence)")
        }
        var runs: [LeakReport.NamedRun] = []
        for name in names.filter({ $0.hasSuffix(".json") }).sorted(by: { (pid($0) ?? 0) < (pid($1) ?? 0) }) {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            } catch {
                throw ToolError("cannot read the leak report \(name): \(error.localizedDescription)")
            }
            let report: LeakReport
            do {
                report = try LeakReport.decode(from: data)
            } catch {
                throw ToolError("cannot read the leak report process \(pid(name) ?? 0) wrote: \(error)")
            }
            let executable = URL(fileURLWithPath: report.program.path).lastPathComponent
            runs.append(LeakReport.NamedRun(name: "\(executable) (pid \(pid(name) ?? 0))", report: report))
            printError(
                "leakgraph: checked \(report.program.path) (pid \(pid(name) ?? 0)), which exited with status "
                    + "\(report.program.exitStatus): \(RunExitStatus.leakSummary(ReportSynopsis(report)))")
        }
        guard !runs.isEmpty else {
            if let first = refusals.first {
                for refusal in refusals.dropFirst() { printError("leakgraph: \(refusal)") }
                throw ToolError(first)
            }
            throw ToolError(
                "the script \(program.path) exited with status \(program.exitStatus), and no Swift program it started "
                    + "wrote a leak report (it started none, or they ended with _exit or a signal); "
                    + "to check one program, run it directly: leakgraph run -- PROGRAM [ARGUMENTS…]")
        }
        for refusal in refusals { printError("leakgraph: \(refusal)") }
        return LeakReport(combining: runs, program: program)
    }
}
