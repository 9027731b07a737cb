import FoundationEssentials
import LeakGraphReport

/// One line of `checks.jsonl`: what a check of a ``LeakMonitor`` measured and found, in numbers —
/// the record an operator watches an ongoing leak's rate, the pause and the program's size in
/// (docs/monitoring.md, "checks.jsonl"). The same values go to the swift-metrics gauges
/// (`LeakMonitorMetrics`) and, at debug level, to the monitor's logger.
public struct LeakMonitorCheckRecord: Codable, Sendable, Equatable {
    /// One leak, by fingerprint, as the check found it.
    public struct Leak: Codable, Sendable, Equatable {
        /// The key the monitor reports it once by (``LeakMonitor/key(of:in:)``: its fingerprint).
        public var fingerprint: String
        /// The type of the cycle's first member.
        public var type: String
        /// Root cycles with this fingerprint confirmed leaked now: the instances of this leak.
        public var cycles: Int
        /// Their objects (members and what they hold).
        public var objects: Int
        /// Those objects' bytes.
        public var bytes: Int
        /// When a check of this monitor first confirmed it (ISO 8601, UTC).
        public var firstSeen: String?
    }

    /// The check's number (``LeakMonitorCheck/number``).
    public var check: Int
    /// When it started (ISO 8601, UTC, milliseconds).
    public var time: String
    /// Why it was skipped; absent when it ran (all other numbers are then 0).
    public var skipped: String?
    /// The longest freeze, in seconds.
    public var pauseSeconds: Double
    /// Every freeze, in seconds: one, or two when candidates needed a confirmation walk.
    public var pausesSeconds: [Double]
    /// The whole check, in seconds.
    public var durationSeconds: Double
    /// Tracked objects alive at the first walk (leaked included), and their bytes.
    public var liveObjects: Int
    /// The bytes of ``liveObjects``.
    public var liveBytes: Int
    /// Confirmed leaked objects (reported now or before), and their bytes.
    public var leakedObjects: Int
    /// The bytes of ``leakedObjects``.
    public var leakedBytes: Int
    /// Confirmed root cycles.
    public var rootCycles: Int
    /// Root cycles whose fingerprint this check saw first (every instance found then; reported now).
    public var newRootCycles: Int
    /// Candidates the confirmation walk did not confirm (never reported).
    public var unconfirmedCycles: Int
    /// Whether every candidate was a leak confirmed before, unchanged (no second read).
    public var knownLeaksOnly: Bool
    /// How the candidates were confirmed: `none` (no candidate), `known`, `reread` (the first walk's
    /// leaked objects read again alone), `walk` (a second whole walk).
    public var confirmation: LeakMonitorCheck.Confirmation
    /// Where the first walk ran: `child` (a forked copy, the heap frozen only for the fork) or
    /// `frozen`; absent for a skipped check.
    public var walk: String?
    /// Why the walk ran frozen though a forked child was asked for; absent otherwise.
    public var childWalkFailure: String?
    /// The process's resident memory when the check started (`VmRSS`), bytes.
    public var residentBytesBefore: Int
    /// The process's peak resident memory once the check was over (`VmHWM`), bytes.
    public var peakResidentBytes: Int
    /// The process's peak resident memory once the first walk's freeze was over (`VmHWM`), bytes:
    /// the walk's share of ``peakResidentBytes``.
    public var walkPeakResidentBytes: Int
    /// Every confirmed leak by fingerprint, the most objects first.
    public var leaks: [Leak]

    /// The record of `check`; `firstSeen` gives when a fingerprint was first confirmed.
    public init(_ check: LeakMonitorCheck, firstSeen: (String) -> Date? = { _ in nil }) {
        self.check = check.number
        time = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(check.date)
        skipped = check.skipReason
        pauseSeconds = check.pause.seconds
        pausesSeconds = check.pauses.map(\.seconds)
        durationSeconds = check.duration.seconds
        liveObjects = check.liveObjects
        liveBytes = check.liveBytes
        leakedObjects = check.leaks.summary.leakedObjects
        leakedBytes = check.leaks.summary.leakedBytes
        rootCycles = check.leaks.cycles.count
        newRootCycles =
            check.newLeaks.cycles.filter {
                Set(check.newFingerprints).contains(LeakMonitor.key(of: $0, in: check.newLeaks))
            }.count
        unconfirmedCycles = check.unconfirmedCycles
        knownLeaksOnly = check.knownLeaksOnly
        confirmation = check.confirmation
        walk = check.walk?.rawValue
        childWalkFailure = check.childWalkFailure
        residentBytesBefore = check.residentBytesBefore
        peakResidentBytes = check.peakResidentBytes
        walkPeakResidentBytes = check.walkPeakResidentBytes
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
                    firstSeen: firstSeen(key).map {
                        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format($0)
                    })
            }
            byKey[key]!.cycles += 1
            byKey[key]!.objects += ids.count
            byKey[key]!.bytes += bytes
        }
        leaks = order.compactMap { byKey[$0] }.sorted { ($0.objects, $1.fingerprint) > ($1.objects, $0.fingerprint) }
    }

    /// The record as one line of JSON (keys sorted), without the newline.
    public func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The record as swift-log metadata values (the debug message of every check).
    public var logMetadata: [String: String] {
        var metadata = [
            "leakgraph.check": "\(check)", "leakgraph.pause_seconds": "\(pauseSeconds)",
            "leakgraph.duration_seconds": "\(durationSeconds)", "leakgraph.live_objects": "\(liveObjects)",
            "leakgraph.live_bytes": "\(liveBytes)", "leakgraph.leaked_objects": "\(leakedObjects)",
            "leakgraph.leaked_bytes": "\(leakedBytes)", "leakgraph.root_cycles": "\(rootCycles)",
            "leakgraph.peak_resident_bytes": "\(peakResidentBytes)",
        ]
        for leak in leaks {
            metadata["leakgraph.leak." + leak.fingerprint] =
                "\(leak.cycles) cycles, \(leak.objects) objects, \(leak.bytes) bytes"
        }
        return metadata
    }
}
