import LeakGraphAnalysis

extension LeakReport {
    /// Where a strong reference into a leaked object was stored (``LeakReference/storeSite``), from the
    /// object's retain history (`leakgraph run --history TYPE`). `known` is true only when the history
    /// allows one answer; otherwise `reason` says why not and `candidates` lists the retains the reference
    /// may hold.
    public struct StoreSite: Sendable, Codable, Equatable {
        /// Whether ``site`` is certain.
        public var known: Bool
        /// With `known`: the retain the reference holds.
        public var site: Site?
        /// Without `known`: the retains it may hold (one per place, oldest first, at most five).
        public var candidates: [Site]?
        /// Without `known`: why not, in one sentence without a final period.
        public var reason: String?

        /// Creates a store site.
        public init(known: Bool, site: Site? = nil, candidates: [Site]? = nil, reason: String? = nil) {
            self.known = known
            self.site = site
            self.candidates = candidates
            self.reason = reason
        }
    }

    /// One retain a reference holds (or may hold): the frame that made it and its whole stack.
    public struct StoreSiteRetain: Sendable, Codable, Equatable {
        /// The frame named as the store site: the first of the program's own code past accessors,
        /// thunks and functions that return the object; `nil` when the stack ends before one.
        public var frame: Frame?
        /// What the site was read from: `write` (the last write into the field holding the reference: the
        /// store itself), `retain` (the retain whose +1 the reference holds, balanced pairs cancelled) or
        /// `allocation` (the reference holds the object's first retain: the store moved it, so `frame` is
        /// where the object was made, and the store was in that function or a callee).
        public var evidence: String
        /// The retain's stack (the creation stack for an allocation), user frames first.
        public var stack: [Frame]

        /// Creates a retain.
        public init(frame: Frame?, evidence: String, stack: [Frame]) {
            self.frame = frame
            self.evidence = evidence
            self.stack = stack
        }

        /// Whether the reference holds the object's allocation.
        public var isAllocation: Bool { evidence == LeakGraphAnalysis.StoreSite.Evidence.allocation.rawValue }
    }
}

extension LeakReport.StoreSite {
    /// One retain a reference holds or may hold.
    public typealias Site = LeakReport.StoreSiteRetain

    /// The report value of the analysis' store site, with each stack turned into frames by `backtrace`.
    public init(_ site: LeakGraphAnalysis.StoreSite, backtrace: (_ stackID: Int) -> [LeakReport.Frame]) {
        let convert = { (candidate: LeakGraphAnalysis.StoreSite.Candidate) -> Site in
            Site(
                frame: candidate.frame.map { LeakReport.Frame(function: $0.function, file: $0.file, line: $0.line) },
                evidence: candidate.evidence.rawValue,
                stack: candidate.stackID.map { backtrace(Int($0)) } ?? [])
        }
        switch site.verdict {
        case .known:
            self.init(known: true, site: site.site.map(convert))
        case .notKnown:
            self.init(known: false, candidates: site.candidates.map(convert), reason: site.reason)
        }
    }
}

extension LeakReport {
    /// The type patterns that record the histories of this report's root cycles (`--history auto`, a test's
    /// re-run): each member's type, exactly, for cycles that are not known library leaks; the standard
    /// library's storage types (every array's) and unnamed objects (closure contexts, boxes) left out.
    public var historyPatterns: [String] {
        var types: [String] = []
        for cycle in cycles where cycle.knownLibraryLeak == nil {
            for member in cycle.members where leaks.indices.contains(member) {
                let type = leaks[member].type
                if !type.hasPrefix("("), !type.hasPrefix("Swift."), !types.contains(type) { types.append(type) }
            }
        }
        return types
    }

    /// The fingerprints of the root cycles that are not known library leaks: the shape a second run must
    /// leak again for its store sites to be about the same leak.
    public var leakShapes: Set<String> {
        Set(cycles.filter { $0.knownLibraryLeak == nil }.map { $0.fingerprint ?? "cycle \($0.id)" })
    }

    /// The ``WalkDiagnostic/typeName`` of a diagnostic about retain histories (why a report names no store
    /// site: a test's re-run that did not leak the same way, histories unavailable).
    public static let historyDiagnosticName = "(retain history)"

    /// The reasons of this report's retain-history diagnostics (``historyDiagnosticName``).
    public var historyNotes: [String] {
        diagnostics.filter { $0.typeName == Self.historyDiagnosticName }.map(\.reason)
    }
}
