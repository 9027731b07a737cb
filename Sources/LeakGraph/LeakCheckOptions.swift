import LeakGraphRecording
import LeakGraphReport

/// How a scoped leak check (``LeakChecker/checkingLeaks(_:_:)-(_,()->R)``) runs and what it leaves out.
///
/// Options combine: `[.ignoring(types: ["Cache"]), .settle(.milliseconds(50))]` (see
/// ``init(combining:)``).
public struct LeakCheckOptions: Sendable {
    /// Return addresses recorded per allocation when the check starts the recorder (0 records none;
    /// `nil`: `Recorder/defaultMaxFrames`). Ignored when recording already runs.
    public var maxFrames: Int?
    /// Types whose root cycles are not reported: a full name (`MyApp.Cache`) or the name without
    /// its module (`Cache`, `Cache<Swift.Int>`). A root cycle is left out when one of its members
    /// has such a type, together with the objects it holds.
    public var ignoredTypes: Set<String>
    /// Root-cycle fingerprints (as the report shows them) that are not reported.
    public var ignoredFingerprints: Set<String>
    /// How long to wait after the body returns before the first check, for objects released
    /// asynchronously (a task finishing, a queue draining).
    public var settle: Duration
    /// Whether each check also looks for orphans, objects retained from nowhere
    /// (``LeakChecker/check(program:executablePath:liveTypes:orphanScan:knownOrphans:)``). Off by default: the
    /// scan stops every other thread for a moment, so their blocking system calls may return `EINTR`.
    public var scansForOrphans: Bool
    /// Whether a check that finds a leak runs the body a second time recording the retain histories of
    /// the leaked cycles' types, so that the report names where each suspect reference was stored (see
    /// ``rerunningWithHistory``). Off by default: the body must be safe to run twice.
    public var rerunsWithHistory = false

    /// Creates options.
    public init(
        maxFrames: Int? = nil, ignoredTypes: Set<String> = [],
        ignoredFingerprints: Set<String> = [], settle: Duration = .zero, scansForOrphans: Bool = false
    ) {
        self.maxFrames = maxFrames
        self.ignoredTypes = ignoredTypes
        self.ignoredFingerprints = ignoredFingerprints
        self.settle = settle
        self.scansForOrphans = scansForOrphans
    }

    /// All of `options` together: the ignored types and fingerprints of each, the longest settle
    /// period, the last frame count given.
    public init(combining options: some Sequence<LeakCheckOptions>) {
        self.init()
        for option in options {
            maxFrames = option.maxFrames ?? maxFrames
            ignoredTypes.formUnion(option.ignoredTypes)
            ignoredFingerprints.formUnion(option.ignoredFingerprints)
            settle = max(settle, option.settle)
            scansForOrphans = scansForOrphans || option.scansForOrphans
            rerunsWithHistory = rerunsWithHistory || option.rerunsWithHistory
        }
    }

    /// Leaves out root cycles with a member of one of `types` (see ``ignoredTypes``).
    public static func ignoring(types: Set<String>) -> LeakCheckOptions {
        LeakCheckOptions(ignoredTypes: types)
    }

    /// Leaves out root cycles with one of `fingerprints`.
    public static func ignoring(fingerprints: Set<String>) -> LeakCheckOptions {
        LeakCheckOptions(ignoredFingerprints: fingerprints)
    }

    /// Waits `duration` after the body before checking (see ``settle``).
    public static func settle(_ duration: Duration) -> LeakCheckOptions {
        LeakCheckOptions(settle: duration)
    }

    /// Also reports orphans: objects in the scope whose retains no memory anywhere accounts for, such
    /// as an `Unmanaged.passRetained` pointer that was dropped (see ``scansForOrphans``).
    public static var scanningForOrphans: LeakCheckOptions {
        LeakCheckOptions(scansForOrphans: true)
    }

    /// When the check finds a leak, runs the body once more recording every retain, release and write of
    /// the leaked cycles' member types (`leakgraph run --history`), and reports that second run: each
    /// suspect then says where its reference was stored (`Stored at Member.swift:14 in
    /// Member.join(_:)`), or that it is not known. Use it only for a body that can run twice; when the
    /// second run does not leak the same way, the first report is kept, with a diagnostic saying so.
    /// Histories stay on for the rest of the process once started.
    public static var rerunningWithHistory: LeakCheckOptions {
        var options = LeakCheckOptions()
        options.rerunsWithHistory = true
        return options
    }

    /// Records `count` return addresses per allocation if the check starts the recorder.
    public static func frames(_ count: Int) -> LeakCheckOptions {
        LeakCheckOptions(maxFrames: count)
    }

    /// Whether `cycle` of `report` is one these options leave out.
    public func ignores(_ cycle: LeakReport.Cycle, of report: LeakReport) -> Bool {
        if let fingerprint = cycle.fingerprint, ignoredFingerprints.contains(fingerprint) {
            return true
        }
        guard !ignoredTypes.isEmpty else { return false }
        return cycle.members.contains { member in
            guard report.leaks.indices.contains(member) else { return false }
            let type = report.leaks[member].type
            return ignoredTypes.contains(type) || ignoredTypes.contains(ReportNaming.shortName(type))
        }
    }
}
