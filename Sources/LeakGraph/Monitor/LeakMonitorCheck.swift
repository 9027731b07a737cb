import FoundationEssentials
import LeakGraphReport

/// What one check of a ``LeakMonitor`` found, or why it was skipped.
public struct LeakMonitorCheck: Sendable {
    /// The check's number: 1 for the monitor's first check, then counting every check, skipped or not.
    public var number: Int
    /// When the check started: the first-seen time of every leak in ``newLeaks``.
    public var date: Date
    /// Why the check did not run, or `nil` when it ran.
    public var skipReason: String?
    /// The confirmed leaks: root cycles found leaked by a check and, unchanged, by its confirmation
    /// check (`LeakReport/confirmed(by:)`), less the ignored ones; those reported by earlier checks
    /// included. Empty when skipped.
    public var leaks: LeakReport
    /// The confirmed root cycles no earlier check of this monitor reported (by fingerprint), with what
    /// they hold — and any confirmed cycle with a reference into one of them, which the proof needs.
    /// ``newFingerprints`` names the new ones.
    public var newLeaks: LeakReport
    /// The fingerprints (see ``LeakMonitor/key(of:in:)``) of the root cycles first seen by this check.
    public var newFingerprints: [String]
    /// Root cycles the first walk found that the confirmation check did not confirm (objects caught
    /// while another thread was changing them, or released meanwhile): never reported.
    public var unconfirmedCycles: Int
    /// How long each heap walk of the check froze the heap (one, or two when a confirmation ran).
    public var pauses: [Duration]
    /// The whole check: walks, analysis, confirmation delay and check, symbolization, reports.
    public var duration: Duration
    /// Tracked objects alive at the first walk (leaked included).
    public var liveObjects: Int
    /// The bytes of those objects.
    public var liveBytes: Int = 0
    /// This process's resident memory when the check started (`VmRSS`, bytes; 0 when skipped or
    /// unknown).
    public var residentBytesBefore: Int = 0
    /// This process's peak resident memory once the check was over (`VmHWM`, bytes; 0 when skipped or
    /// unknown): the check's peak, or the program's own when that was higher. Less
    /// ``residentBytesBefore``, at most what the check added.
    public var peakResidentBytes: Int = 0
    /// This process's peak resident memory once the first walk's freeze was over (`VmHWM`, bytes):
    /// the walk's share of ``peakResidentBytes``; the rest came from the analysis, the
    /// symbolization of creation stacks (the debug information of each module a frame is in) and
    /// the reports.
    public var walkPeakResidentBytes: Int = 0
    /// Whether the candidates of the first walk were all leaks an earlier check of this monitor had
    /// confirmed, unchanged (same addresses, retain counts and references): proven already, they
    /// were not walked for again, and the check froze once.
    public var knownLeaksOnly = false
    /// How the check's candidates were confirmed.
    public var confirmation = Confirmation.none
    /// The objects read again to confirm this check's candidates (`confirmation` `.reread`): those of the
    /// root cycles the previous check had not confirmed unchanged, and of the cycles referencing them —
    /// not every leaked object, so a long-running leak costs each check only what it added.
    public var rereadObjects = 0
    /// The leaked objects the forked child found as the previous check had confirmed them, unchanged,
    /// and did not send back (their graph came from the previous check): a known leak costs a check
    /// no encoding, decoding or second read.
    public var knownObjectsLeftOut = 0
    /// Where the check's first walk ran: `child` (a forked copy of the process, the heap frozen only
    /// for the fork), `frozen` (in the program, the heap frozen for the walk); `nil` for a skipped check.
    public var walk: Walk?
    /// Why the walk ran frozen though a forked child was asked for (``LeakMonitorConfiguration/childWalkTimeout``):
    /// the child could not be made, did not finish in time and was killed, or ended without its result.
    public var childWalkFailure: String?
    /// How many creation stacks the forked child of the first walk symbolized for this check's reports
    /// (``LeakMonitorConfiguration/symbolizesInChild``): stacks no earlier check had symbolized, whose
    /// frames the program got without making a symbolizer. 0 when none was needed or the child did
    /// not symbolize them.
    public var stacksSymbolizedInChild = 0

    /// Where a check's first walk ran (``walk``).
    public enum Walk: String, Sendable, Codable {
        /// In a forked child, on its copy-on-write instant of the heap.
        case child
        /// In the program, the heap frozen for the walk.
        case frozen
    }

    /// How a check confirmed its candidates (``confirmation``): `CheckConfirmation` (`LeakGraphReport`).
    public typealias Confirmation = CheckConfirmation
    /// The heap snapshot this check wrote (``LeakMonitorConfiguration/snapshotDirectory``), or `nil`.
    public var snapshotPath: String?

    /// The longest freeze of the check (zero when skipped).
    public var pause: Duration { pauses.max() ?? .zero }

    /// Whether the check was skipped (see ``skipReason``).
    public var isSkipped: Bool { skipReason != nil }

    /// Creates a check result.
    public init(
        number: Int, date: Date, skipReason: String? = nil, leaks: LeakReport, newLeaks: LeakReport,
        newFingerprints: [String], unconfirmedCycles: Int = 0, pauses: [Duration], duration: Duration, liveObjects: Int
    ) {
        self.number = number
        self.date = date
        self.skipReason = skipReason
        self.leaks = leaks
        self.newLeaks = newLeaks
        self.newFingerprints = newFingerprints
        self.unconfirmedCycles = unconfirmedCycles
        self.pauses = pauses
        self.duration = duration
        self.liveObjects = liveObjects
    }
}
