import LeakGraphModel
import LeakGraphReport

/// The leak trace lines of a root cycle in the text report: the ring as one path, the suspect reference
/// with its reason and fix, and the fingerprint.
///
/// ```
///    MainViewController.registry → BikeRegistry.delegate → MainViewController
///    Suspect: BikeRegistry.delegate — `delegate` is named like a back-reference, yet it holds its target strongly. Fix: make it `weak var delegate`.
///    Fingerprint: 5b0e1c9a7f3d2e41
/// ```
///
/// When the suspect alone does not free the cycle, an `Also cut:` line follows it for each other
/// reference that must be cut (``LeakReport/Cycle/otherCuts``) and needs a change of its own: cuts of
/// the same `Type.label` with the same fix as one already shown (the same declaration in another
/// object of the cycle) are not repeated.
extension TextRenderer {
    /// A reference of the report by leak positions and its index in `report.references`.
    struct SuspectEdge {
        var from: Int
        var to: Int
        var reference: Int
    }

    /// The text appended to the tree line that draws the suspect reference.
    static let suspectMarker = "  ← suspect"

    /// Rings with more references than this are written abbreviated (see ``ringText(_:suspect:)``).
    static let ringStepLimit = 6

    /// The suspect of `cycle` by leak positions, when it has one that names two leaks of the report.
    func suspectEdge(of cycle: LeakReport.Cycle) -> SuspectEdge? {
        cycle.suspect.flatMap(edge(of:))
    }

    /// The reference `suspect` names (the suspect or another cut) by leak positions.
    func edge(of suspect: LeakReport.Suspect) -> SuspectEdge? {
        guard let reference = index.referenceIndex(of: suspect) else { return nil }
        let suspect = report.references[reference]
        guard let from = position[suspect.from], let to = position[suspect.to] else { return nil }
        return SuspectEdge(from: from, to: to, reference: reference)
    }

    /// Appends the ring path and suspect lines (when the cycle has a suspect) and the fingerprint line (when
    /// it has a fingerprint).
    ///
    /// The ring is the shortest path over strong references among the cycle's `members` (positions) from
    /// the suspect's target back to its source (breadth-first, references in report order), closed by the
    /// suspect itself. It is written from the suspect's target, or from a class instance when that target
    /// is a closure context or storage (see ``startOfRing(_:)``), each step as `Type.label` (`Type[3]` for a
    /// path that starts with a subscript), then the first
    /// type again. A ring of more than ``ringStepLimit`` references shows its first two references, the
    /// suspect and the last, with `… (N objects in the ring)` for what is left out.
    mutating func renderTrace(_ cycle: LeakReport.Cycle, members: [Int]) {
        if let suspect = cycle.suspect, let edge = suspectEdge(of: cycle) {
            if let steps = ring(closedBy: edge, members: members) {
                let start = startOfRing(steps)
                lines.append(
                    "   " + ringText(Array(steps[start...] + steps[..<start]), suspect: steps.count - 1 - start))
            }
            // A known library leak is not the reader's to fix: its ring is shown, no fix is offered.
            guard cycle.knownLibraryLeak == nil else { return renderFingerprint(cycle) }
            let reason = Self.sentence(suspect.reason)
            let hint = Self.sentence(suspect.hint)
            lines.append("   Suspect: \(stepText(edge)) — \(reason) Fix: \(hint)")
            renderStoreSite(edge)
            // One line per distinct fix: the same declaration in several objects is one change.
            var fixes: Set<[String]> = [[stepText(edge), suspect.hint]]
            for cut in cycle.otherCuts ?? [] {
                guard let other = self.edge(of: cut), fixes.insert([stepText(other), cut.hint]).inserted else {
                    continue
                }
                lines.append(
                    "   Also cut: \(stepText(other)) — \(Self.sentence(cut.reason)) Fix: \(Self.sentence(cut.hint))")
                renderStoreSite(other)
            }
        }
        renderFingerprint(cycle)
    }

    /// Appends the `Fingerprint:` line of `cycle`, when it has one.
    private mutating func renderFingerprint(_ cycle: LeakReport.Cycle) {
        if let fingerprint = cycle.fingerprint {
            lines.append("   Fingerprint: \(fingerprint)")
        }
    }

    /// The references of the ring through `edge`, starting at its target and ending with `edge`, or `nil`
    /// when no path leads back from the target to the source among `members`.
    ///
    /// - Complexity: O(*m* + *e*) for the members and their references.
    func ring(closedBy edge: SuspectEdge, members: [Int]) -> [SuspectEdge]? {
        let start = edge.to
        let goal = edge.from
        var path: [SuspectEdge] = []
        if start != goal {
            var isMember: Set<Int> = []
            isMember.reserveCapacity(members.count)
            for member in members { isMember.insert(member) }
            guard isMember.contains(start), isMember.contains(goal) else { return nil }
            // Breadth-first from the start; `reachedBy[n]` is the reference that first reached `n`.
            var reachedBy: [Int: SuspectEdge] = [start: SuspectEdge(from: start, to: start, reference: -1)]
            var queue = [start]
            var head = 0
            search: while head < queue.count {
                let node = queue[head]
                head += 1
                for (target, reference) in strongOut[node] where isMember.contains(target) && reachedBy[target] == nil {
                    reachedBy[target] = SuspectEdge(from: node, to: target, reference: reference)
                    if target == goal { break search }
                    queue.append(target)
                }
            }
            guard reachedBy[goal] != nil else { return nil }
            var node = goal
            while node != start, let step = reachedBy[node] {
                path.append(step)
                node = step.from
            }
            path.reverse()
        }
        path.append(edge)
        return path
    }

    /// The step the ring line starts with, in `steps` as ``ring(closedBy:members:)`` returns them: the
    /// first (leaving the suspect's target, so the suspect closes the line) when that object is a class
    /// instance; else the one leaving the ring's class instance listed first in the report; else the first.
    func startOfRing(_ steps: [SuspectEdge]) -> Int {
        func isClass(_ step: SuspectEdge) -> Bool { report.leaks[step.from].kind == ObjectKind.class.rawValue }
        guard let first = steps.first, !isClass(first) else { return 0 }
        let classSteps = steps.indices.filter { isClass(steps[$0]) }
        return classSteps.min { steps[$0].from < steps[$1].from } ?? 0
    }

    /// `A.registry → B.delegate → A`. Past ``ringStepLimit`` references only the first two, the last and
    /// the suspect (at `suspect`) are written; the first gap says `… (N objects in the ring)`, a later one `…`.
    func ringText(_ steps: [SuspectEdge], suspect: Int) -> String {
        var parts: [String] = []
        if steps.count > Self.ringStepLimit {
            let shown = Set([0, 1, suspect, steps.count - 1])
            var counted = false
            var previous = -1
            for index in shown.sorted() {
                if index > previous + 1 {
                    parts.append(counted ? "…" : "… (\(ReportNaming.grouped(steps.count)) objects in the ring)")
                    counted = true
                }
                parts.append(stepText(steps[index]))
                previous = index
            }
        } else {
            for (index, step) in steps.enumerated() {
                // The reference into collection storage is said by the next step's name
                // (`Hub.handlers[0] (closure)`), so it is not written twice.
                if index + 1 < steps.count, step.to == steps[index + 1].from, namesStorageOwner(steps[index + 1]) {
                    continue
                }
                parts.append(stepText(step))
            }
        }
        parts.append(typeText(steps[0].from))
        return parts.joined(separator: " → ")
    }

    /// `Type.label`, or `Type[3]` when the path starts with a subscript.
    func stepText(_ step: SuspectEdge) -> String {
        let path = report.references[step.reference].path
        // An element of collection storage is named from the field that holds the storage when one
        // leaked object alone holds it: `Hub.handlers[0] (closure)`, not `_ContiguousArrayStorage<…>[0]`.
        if path.startsWithSubscript, let owner = storageOwnerText(step.from) {
            return owner + path.text
        }
        return ReportNaming.referenceText(type: typeText(step.from), path: path)
    }

    /// Whether ``stepText(_:)`` names `step` from the field holding its collection storage.
    func namesStorageOwner(_ step: SuspectEdge) -> Bool {
        report.references[step.reference].path.startsWithSubscript && storageOwnerText(step.from) != nil
    }

    /// `Hub.handlers` for the collection storage at `position` when exactly one strong reference from a
    /// leaked object leads to it (``TextRenderer/storageHolder``); `nil` for other objects.
    func storageOwnerText(_ position: Int) -> String? {
        guard let reference = storageHolder[position], let owner = self.position[report.references[reference].from]
        else {
            return nil
        }
        return ReportNaming.referenceText(type: typeText(owner), path: report.references[reference].path)
    }

    /// `text` ending with a period.
    static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? text : text + "."
    }
}
