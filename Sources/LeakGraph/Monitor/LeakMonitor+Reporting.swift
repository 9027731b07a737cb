import FoundationEssentials
import LeakGraphRender
import LeakGraphReport
import Logging

extension LeakMonitor {
    /// Hands a check that ran to every output: its record (`checks.jsonl`, the debug log), the log and
    /// the report folder and the callback when it found new leaks, then the observers.
    func publish(_ check: LeakMonitorCheck) {
        writeRecord(of: check)
        if !check.newFingerprints.isEmpty {
            log(check)
            if let directory = configuration.reportDirectory {
                do {
                    let folder = ReportFolder(path: directory, kept: configuration.keptReports)
                    let path = try folder.write(check.newLeaks, date: check.date, check: check.number)
                    configuration.logger.info(
                        "LeakGraph: leak report written", metadata: ["leakgraph.report": "\(path)"])
                } catch {
                    configuration.logger.error(
                        "LeakGraph: the leak report could not be written to \(directory): \(error)")
                }
            }
            onNewLeaks?(check)
        }
        notifyObservers(check)
    }

    /// The check's record: one debug message, and one line of `checks.jsonl` in the report folder.
    func writeRecord(of check: LeakMonitorCheck) {
        let record = LeakMonitorCheckRecord(check) { firstSeen($0) }
        configuration.logger.debug(
            "LeakGraph: leak check \(record.check)\(record.skipped.map { " skipped: " + $0 } ?? ""): \(record.leakedObjects) leaked objects, \(record.liveObjects) live",
            metadata: record.logMetadata.mapValues { .string($0) })
        guard let directory = configuration.reportDirectory else { return }
        do {
            try ChecksFile(folder: directory).append(record)
        } catch {
            configuration.logger.error("LeakGraph: the check record could not be written to \(directory): \(error)")
        }
    }

    /// Calls every observer with `check`.
    func notifyObservers(_ check: LeakMonitorCheck) {
        for observer in state.withLock({ $0.observers }) {
            observer(check)
        }
    }

    /// One warning per new fingerprint: its section of the text report (the leak trace, suspect,
    /// fingerprint and members), with the fingerprint, size and first-seen time as metadata.
    private func log(_ check: LeakMonitorCheck) {
        let report = check.newLeaks
        var keys = Set(check.newFingerprints)
        let sections = TextReport.cycleSections(of: report)
        let firstSeen = check.date.formatted(.iso8601)
        // Several cycles with one fingerprint (the same leak made twice) are one message.
        for (position, cycle) in report.cycles.enumerated() where keys.remove(Self.key(of: cycle, in: report)) != nil {
            let objects = cycle.members.count + cycle.holds.count
            let bytes = (cycle.members + cycle.holds).reduce(0) { sum, id in
                sum + (report.leaks.indices.contains(id) ? report.leaks[id].size : 0)
            }
            configuration.logger.warning(
                "LeakGraph: new leak\n\(sections[position])",
                metadata: [
                    "leakgraph.fingerprint": "\(Self.key(of: cycle, in: report))",
                    "leakgraph.objects": "\(objects)",
                    "leakgraph.bytes": "\(bytes)",
                    "leakgraph.first_seen": "\(firstSeen)",
                    "leakgraph.check": "\(check.number)",
                ])
        }
    }
}
