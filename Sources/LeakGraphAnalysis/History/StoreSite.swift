/// Where a strong reference into a leaked object was stored, read from the object's retain history
/// (`leakgraph run --history TYPE`): the retain (or the allocation) whose +1 the reference still holds,
/// and the frame of its stack that made it.
///
/// Only ``Verdict/known`` names a line as fact. When the history allows more than one answer — a release
/// that could have balanced either of two retains, two references and two retains that could go either
/// way, retains made where the recorder does not see them — the verdict is ``Verdict/notKnown`` and the
/// ``candidates`` are listed instead.
public struct StoreSite: Sendable, Hashable {
    /// Whether the store site is certain.
    public enum Verdict: String, Sendable, Hashable, Codable {
        /// One retain, and one frame of it, is the reference's.
        case known
        /// The history allows several answers (``StoreSite/candidates``), or none.
        case notKnown
    }

    /// What a site was read from.
    public enum Evidence: String, Sendable, Hashable, Codable {
        /// The last write into the field that holds the reference (a modify access the compiler checks for
        /// exclusivity, recorded in its holder's history): the store itself.
        case write
        /// The retain whose +1 the reference holds, after balanced pairs were cancelled.
        case retain
        /// The object's allocation, whose +1 the reference holds.
        case allocation
    }

    /// One retain (or the allocation) the reference may hold.
    public struct Candidate: Sendable, Hashable {
        /// The stack of the retain (the creation stack for an allocation), innermost first.
        public var stackID: UInt32?
        /// The frame that made it: the first frame of the program's own code, past accessors and thunks
        /// and past functions that hand the reference back to their caller; `nil` when the stack ends
        /// before such a frame.
        public var frame: HistoryFrame?
        /// The frame that called ``frame``'s function, when the stack has one: two retains made by the same
        /// code reached from different places are different candidates.
        public var caller: HistoryFrame?
        /// What the site was read from.
        public var evidence: Evidence
        /// The event's position in the process's history.
        public var sequence: Int

        /// Whether the reference holds the object's allocation: its first retain (the store moved it,
        /// retaining nothing), so `frame` is where the object was made and the store happened in that
        /// function or a callee.
        public var isAllocation: Bool { evidence == .allocation }

        /// Creates a candidate.
        public init(
            stackID: UInt32?, frame: HistoryFrame?, caller: HistoryFrame? = nil, evidence: Evidence, sequence: Int
        ) {
            self.stackID = stackID
            self.frame = frame
            self.caller = caller
            self.evidence = evidence
            self.sequence = sequence
        }
    }

    /// Whether the site is certain.
    public var verdict: Verdict
    /// With ``Verdict/known``: the retain the reference holds; `nil` otherwise.
    public var site: Candidate?
    /// With ``Verdict/notKnown``: the retains the reference may hold (at most a few, oldest first).
    public var candidates: [Candidate]
    /// With ``Verdict/notKnown``: why, in one sentence without a final period.
    public var reason: String?

    /// A certain site.
    public static func known(_ site: Candidate) -> StoreSite {
        StoreSite(verdict: .known, site: site, candidates: [], reason: nil)
    }

    /// An uncertain one.
    public static func notKnown(_ reason: String, candidates: [Candidate]) -> StoreSite {
        StoreSite(verdict: .notKnown, site: nil, candidates: candidates, reason: reason)
    }
}
