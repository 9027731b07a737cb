import FoundationEssentials

/// One line of `checks.jsonl`: what a check of a `LeakMonitor` measured and found, in numbers —
/// the record an operator watches an ongoing leak's rate, the pause and the program's size in
/// (docs/monitoring.md, "checks.jsonl"). The same values go to the swift-metrics gauges
/// (`LeakMonitorMetrics`) and, at debug level, to the monitor's logger; ``CheckHistory`` reads the
/// file back for `leakgraph report FOLDER`.
public struct LeakMonitorCheckRecord: Codable, Sendable, Equatable {
    /// One leak, by fingerprint, as the check found it.
    public struct Leak: Codable, Sendable, Equatable {
        /// The key the monitor reports it once by (`LeakMonitor.key(of:in:)`: its fingerprint).
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

        /// A leak's line with these values.
        public init(fingerprint: String, type: String, cycles: Int, objects: Int, bytes: Int, firstSeen: String? = nil)
        {
            self.fingerprint = fingerprint
            self.type = type
            self.cycles = cycles
            self.objects = objects
            self.bytes = bytes
            self.firstSeen = firstSeen
        }
    }

    /// The check's number (`LeakMonitorCheck.number`).
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
    public var confirmation: CheckConfirmation
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

    /// A record with these values (a `LeakMonitor` makes one from each check; tests and tools may
    /// build their own).
    public init(
        check: Int, time: String, skipped: String? = nil, pauseSeconds: Double, pausesSeconds: [Double],
        durationSeconds: Double, liveObjects: Int, liveBytes: Int, leakedObjects: Int, leakedBytes: Int,
        rootCycles: Int, newRootCycles: Int, unconfirmedCycles: Int = 0, knownLeaksOnly: Bool = false,
        confirmation: CheckConfirmation = .none, walk: String? = nil, childWalkFailure: String? = nil,
        residentBytesBefore: Int = 0, peakResidentBytes: Int = 0,
        walkPeakResidentBytes: Int = 0, leaks: [Leak] = []
    ) {
        self.check = check
        self.time = time
        self.skipped = skipped
        self.pauseSeconds = pauseSeconds
        self.pausesSeconds = pausesSeconds
        self.durationSeconds = durationSeconds
        self.liveObjects = liveObjects
        self.liveBytes = liveBytes
        self.leakedObjects = leakedObjects
        self.leakedBytes = leakedBytes
        self.rootCycles = rootCycles
        self.newRootCycles = newRootCycles
        self.unconfirmedCycles = unconfirmedCycles
        self.knownLeaksOnly = knownLeaksOnly
        self.confirmation = confirmation
        self.walk = walk
        self.childWalkFailure = childWalkFailure
        self.residentBytesBefore = residentBytesBefore
        self.peakResidentBytes = peakResidentBytes
        self.walkPeakResidentBytes = walkPeakResidentBytes
        self.leaks = leaks
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
