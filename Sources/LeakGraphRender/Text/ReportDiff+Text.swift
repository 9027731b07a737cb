import LeakGraphReport

extension ReportDiff {
    /// The diff as text: a verdict line, then the root cycles that changed, the leaked types that
    /// changed and, when both reports count them, the live types that changed (the 25 that grew most),
    /// one line each; when both carry allocation profiles, their ``AllocationDiff/text``.
    ///
    /// ```
    /// 2 new leaks, 1 gone; 3 leaked types changed.
    ///
    /// ROOT CYCLES
    ///   new     0 → 2 (+96 bytes)  N × 2  9598a3eac7c07ac7
    ///   new     0 → 1 (+32 bytes)  Owner × 1  8ea7000ea37c89ee
    ///   gone    1 → 0 (-48 bytes)  N × 2  61510b24945355e1
    ///
    /// LEAKED OBJECTS BY TYPE
    ///   +4 (+96 bytes)  App.N  (0 → 4)
    /// ```
    public var text: String {
        let unchanged = cycles.filter { $0.oldCount == $0.newCount }.count
        var verdict: [String] = []
        verdict.append(ReportNaming.count(newLeaks.count, "new leak"))
        if !grownLeaks.isEmpty { verdict.append("\(ReportNaming.grouped(grownLeaks.count)) grown") }
        let gone = cycles.filter { $0.newCount == 0 }.count
        if gone > 0 { verdict.append("\(ReportNaming.grouped(gone)) gone") }
        var lines = [
            verdict.joined(separator: ", ") + "; \(ReportNaming.count(leakedTypes.count, "leaked type")) changed."
        ]
        let changed = cycles.filter { $0.oldCount != $0.newCount }
        if !changed.isEmpty {
            lines.append("")
            lines.append("ROOT CYCLES")
            for change in changed {
                let state =
                    change.oldCount == 0
                    ? "new"
                    : change.newCount == 0
                        ? "gone"
                        : change.newCount > change.oldCount ? "grown" : "shrunk"
                let counts = "\(ReportNaming.grouped(change.oldCount)) → \(ReportNaming.grouped(change.newCount))"
                let bytes = Self.signed(change.newBytes - change.oldBytes) + " bytes"
                let library = change.knownLibraryLeak == nil ? "" : "  [known library leak]"
                lines.append(
                    "  \(state + String(repeating: " ", count: max(0, 7 - state.count))) \(counts) (\(bytes))  \(change.types)  \(change.key)\(library)"
                )
            }
        }
        if unchanged > 0 {
            lines.append("")
            lines.append("\(ReportNaming.count(unchanged, "kind")) of root cycle unchanged.")
        }
        Self.appendTypes(leakedTypes, titled: "LEAKED OBJECTS BY TYPE", to: &lines)
        if let liveTypes {
            Self.appendTypes(Array(liveTypes.prefix(Self.liveTypeLimit)), titled: "LIVE OBJECTS BY TYPE", to: &lines)
            if liveTypes.count > Self.liveTypeLimit {
                lines.append("  … and \(ReportNaming.count(liveTypes.count - Self.liveTypeLimit, "more type"))")
            }
        }
        return lines.joined(separator: "\n") + "\n" + (allocations.map { "\n" + $0.text } ?? "")
    }

    /// Live types shown in the text (the JSON has them all).
    static let liveTypeLimit = 25

    /// A section of type changes: `+3 (+120 bytes)  NeighBird.Member  (2 → 5)` per type.
    static func appendTypes(_ changes: [TypeChange], titled title: String, to lines: inout [String]) {
        guard !changes.isEmpty else { return }
        lines.append("")
        lines.append(title)
        for change in changes {
            let counts = "\(ReportNaming.grouped(change.oldCount)) → \(ReportNaming.grouped(change.newCount))"
            lines.append(
                "  \(signed(change.newCount - change.oldCount)) (\(signed(change.newBytes - change.oldBytes)) bytes)  \(change.type)  (\(counts))"
            )
        }
    }

    /// `+3`, `-2`, `0`, grouped by thousands.
    static func signed(_ value: Int) -> String {
        value > 0 ? "+" + ReportNaming.grouped(value) : value < 0 ? "-" + ReportNaming.grouped(-value) : "0"
    }
}
