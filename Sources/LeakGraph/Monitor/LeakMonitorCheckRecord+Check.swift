import FoundationEssentials
import LeakGraphReport

extension LeakMonitorCheckRecord {
    /// The record of `check`; `firstSeen` gives when a fingerprint was first confirmed.
    public init(_ check: LeakMonitorCheck, firstSeen: (String) -> Date? = { _ in nil }) {
        let stamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let report = check.leaks
        var byKey: [String: Leak] = [:]
        var order: [String] = []
        for cycle in report.cycles {
            let key = LeakMonitor.key(of: cycle, in: report)
            let ids = (cycle.members + cycle.holds).filter { report.leaks.indices.contains($0) }
            let bytes = ids.reduce(0) { $0 + report.leaks[$1].size }
            if byKey[key] == nil {
                order.append(key)
                let type =
                    cycle.members.first.flatMap { report.leaks.indices.contains($0) ? report.leaks[$0].type : nil }
                    ?? ""
                byKey[key] = Leak(
                    fingerprint: key, type: type, cycles: 0, objects: 0, bytes: 0,
                    firstSeen: firstSeen(key).map { stamp.format($0) })
            }
            byKey[key]!.cycles += 1
            byKey[key]!.objects += ids.count
            byKey[key]!.bytes += bytes
        }
        let newFingerprints = Set(check.newFingerprints)
        self.init(
            check: check.number, time: stamp.format(check.date), skipped: check.skipReason,
            pauseSeconds: check.pause.seconds, pausesSeconds: check.pauses.map(\.seconds),
            durationSeconds: check.duration.seconds, liveObjects: check.liveObjects, liveBytes: check.liveBytes,
            leakedObjects: report.summary.leakedObjects, leakedBytes: report.summary.leakedBytes,
            rootCycles: report.cycles.count,
            newRootCycles: check.newLeaks.cycles.filter {
                newFingerprints.contains(LeakMonitor.key(of: $0, in: check.newLeaks))
            }.count,
            unconfirmedCycles: check.unconfirmedCycles, knownLeaksOnly: check.knownLeaksOnly,
            confirmation: check.confirmation, walk: check.walk?.rawValue, childWalkFailure: check.childWalkFailure,
            residentBytesBefore: check.residentBytesBefore,
            peakResidentBytes: check.peakResidentBytes, walkPeakResidentBytes: check.walkPeakResidentBytes,
            leaks: order.compactMap { byKey[$0] }.sorted {
                ($0.objects, $1.fingerprint) > ($1.objects, $0.fingerprint)
            })
    }
}
