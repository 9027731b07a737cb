import LeakGraphReport

/// The fingerprint as LeakGraph computed it before references carried typed paths: from each internal
/// strong reference's *label*, every `[digits]` replaced by `[*]`, as the line `Source⇥label⇥Target`;
/// distinct lines sorted by UTF-8 bytes after the header; FNV-1a 64. Kept here, in the tests only, as the
/// reference the new path-based computation must agree with (baselines key on fingerprints).
enum LegacyFingerprint {
    static func of(_ cycle: LeakReport.Cycle, in report: LeakReport) -> String {
        let members = Set(cycle.members)
        let types = Dictionary(report.leaks.map { ($0.id, $0.type) }, uniquingKeysWith: { a, _ in a })
        var lines: Set<String> = []
        if cycle.isOrphan, let member = cycle.members.first {
            // An orphan has no internal references: its one line names its type.
            lines.insert("orphan\t\(types[member] ?? "")")
        }
        for reference in report.references
        where reference.ownership == .strong && members.contains(reference.from) && members.contains(reference.to) {
            lines.insert("\(types[reference.from] ?? "")\t\(normalized(reference.label))\t\(types[reference.to] ?? "")")
        }
        let text = (["leakgraph-cycle-fingerprint-1"] + lines.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            .map { $0 + "\n" }.joined()
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `label` with every `[digits]` replaced by `[*]` (the old normalization, character by character).
    static func normalized(_ label: String) -> String {
        var result = ""
        var pending = ""
        for character in label {
            if !pending.isEmpty {
                if character.isASCII, character.isNumber {
                    pending.append(character)
                    continue
                }
                if character == "]", pending.count > 1 {
                    result += "[*]"
                    pending = ""
                    continue
                }
                result += pending
                pending = ""
            }
            if character == "[" { pending = "[" } else { result.append(character) }
        }
        return result + pending
    }
}
