import LeakGraphReport

extension Leakgraph.Run {
    /// `--history auto`'s first run: the program run once, as usual but rendering nothing, in a workspace of
    /// its own; its decoded report (`nil` when it crashed or left none: then nothing is recorded).
    static func historyAutoFirstRun(
        executable: String, command: [String], frames: Int, preloadLibrary: String, environment: [String: String],
        environmentRoot: [String: String]
    ) throws(ToolError) -> LeakReport? {
        let workspace = try ReportWorkspace.create(environment: environmentRoot)
        defer { workspace.remove() }
        let first = try check(
            executable: executable, command: command, frames: frames, preloadLibrary: preloadLibrary,
            environment: environment, rendering: ChildRendering(), in: workspace)
        guard case .decoded(let report) = first else { return nil }
        return report
    }

    /// Tells the user when `--history auto`'s second run did not leak as the first did: its store sites
    /// then describe other leaks, or none.
    static func compareHistoryRuns(first: LeakReport, second: FinishedCheck, workspace: ReportWorkspace) {
        let before = HistoryOptions.leakShapes(first)
        let after: Set<String>
        switch second {
        case .decoded(let report):
            after = HistoryOptions.leakShapes(report)
        case .rendered:
            guard let data = try? workspace.reportData(), let report = try? LeakReport.decode(from: data) else {
                return
            }
            after = HistoryOptions.leakShapes(report)
        }
        guard before != after else { return }
        let missing = before.subtracting(after).count
        let new = after.subtracting(before).count
        printError(
            "leakgraph: --history auto: the program did not leak the same way twice (\(missing) root cycle(s) of the first run "
                + "not leaked again, \(new) new): store sites are given only for what the second run leaked")
    }
}
