import LeakGraphModel
import LeakGraphRecording
import LeakGraphReport

/// What a check with ``LeakCheckOptions/rerunsWithHistory`` does after its first report.
enum HistoryRerun {
    /// No re-run: the option is off, or nothing leaked that a history could explain.
    case none
    /// Histories are being recorded for these patterns: the body runs again.
    case run(patterns: [String])
    /// Histories could not be started here (the first report is kept, with this reason).
    case unavailable(reason: String)
}

extension LeakCheckScope {
    /// With ``LeakCheckOptions/rerunsWithHistory`` and a leak in `report`: starts recording the histories
    /// of its root cycles' member types (``LeakReport/historyPatterns``), so that the body can run again.
    func historyRerun(after report: LeakReport) -> HistoryRerun {
        guard options.rerunsWithHistory else { return .none }
        let patterns = report.historyPatterns
        guard !patterns.isEmpty else { return .none }
        do {
            try RetainHistoryLog.start(patterns: patterns)
        } catch {
            return .unavailable(reason: error.message)
        }
        return .run(patterns: patterns)
    }
}

extension LeakCheckOptions {
    /// These options without ``rerunsWithHistory`` (for the second run itself).
    var withoutRerun: LeakCheckOptions {
        var options = self
        options.rerunsWithHistory = false
        return options
    }
}

extension LeakReport {
    /// This report after `rerun`: the second run's report (`second`) when it leaked the same root cycles
    /// as this one (by fingerprint), so that its store sites are about this leak; otherwise this report
    /// with a diagnostic saying why it names no store site.
    func replaced(after rerun: HistoryRerun, byHistoryRun second: Result<LeakReport, any Error>?) -> LeakReport {
        let reason: String
        switch rerun {
        case .none:
            return self
        case .unavailable(let why):
            reason = "no retain history could be recorded to run the body again: \(why)"
        case .run(let patterns):
            let recorded = patterns.joined(separator: ", ")
            switch second {
            case .success(let report) where report.leakShapes == leakShapes:
                return report
            case .success(let report):
                let missing = leakShapes.subtracting(report.leakShapes).count
                let new = report.leakShapes.subtracting(leakShapes).count
                reason =
                    "the body, run again recording \(recorded), did not leak the same way (\(missing) root "
                    + "cycle(s) not leaked again, \(new) new): this is the first run's report, with no store site"
            case .failure(let error):
                reason =
                    "the body, run again recording \(recorded), threw \(error): this is the first run's report, "
                    + "with no store site"
            case nil:
                reason = "the body could not be run again: this is the first run's report, with no store site"
            }
        }
        var first = self
        first.diagnostics.append(WalkDiagnostic(typeName: Self.historyDiagnosticName, reason: reason, objectCount: 0))
        return first
    }
}
