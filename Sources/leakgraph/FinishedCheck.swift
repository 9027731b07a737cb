import LeakGraphReport

/// The result of `leakgraph run`'s check, ready to publish: the files the checked program rendered,
/// or the decoded report.
enum FinishedCheck {
    /// The program rendered every output asked for (no graphs), for exactly this run.
    case rendered(RenderedFiles)
    /// The report, decoded, with the program's facts as `leakgraph run` saw them.
    case decoded(LeakReport)

    /// The leak verdict (``LeakReport/Verdict/notChecked`` for a crash).
    var verdict: LeakReport.Verdict {
        switch self {
        case .rendered(let files): files.synopsis.verdict
        case .decoded(let report): report.verdict
        }
    }

    /// The facts the exit status and the one-line summary need.
    var synopsis: ReportSynopsis {
        switch self {
        case .rendered(let files): files.synopsis
        case .decoded(let report): ReportSynopsis(report)
        }
    }
}
