import LeakGraphModel

/// A compact notation for typed reference paths in hand-built test graphs: the text a path is shown as
/// (`next`, `meta.owner`, `[2]`, `handler (closure)`, `state (.connected).conn`, `capture[0] (box)`,
/// `value`, `["a"]`), read back into steps. Test code only: no stage of LeakGraph parses labels.
public func path(_ notation: String) -> ReferencePath {
    var steps: [PathStep] = []
    var rest = Substring(notation)
    while !rest.isEmpty {
        if rest.hasPrefix(" (") {
            guard let close = rest.firstIndex(of: ")") else { break }
            let note = rest[rest.index(rest.startIndex, offsetBy: 2) ..< close]
            rest = rest[rest.index(after: close)...]
            switch note {
            case "closure": steps.append(.closureContext)
            case "box": steps.append(.captureBox)
            case "indirect": steps.append(.indirectPayload)
            default:
                if note.hasPrefix(".") {
                    steps.append(.enumCase(String(note.dropFirst())))
                } else if note.hasSuffix(", boxed"), let range = note.firstRange(of: " as ") {
                    steps.append(
                        .existentialBox(
                            existential: String(note[..<range.lowerBound]),
                            type: String(note[range.upperBound...].dropLast(", boxed".count))))
                } else {
                    steps.append(.existentialValue(type: String(note)))
                }
            }
            continue
        }
        if rest.hasPrefix(".") { rest = rest.dropFirst() }
        let end = rest.firstIndex { $0 == "." || $0 == " " } ?? rest.endIndex
        let part = rest[..<end]
        rest = rest[end...]
        if !part.hasPrefix("["), !part.hasPrefix("capture["), let open = part.firstIndex(of: "["), part.hasSuffix("]"),
            let index = Int(part[part.index(after: open)...].dropLast())
        {
            steps.append(component(String(part[..<open])))
            steps.append(.element(index))
        } else {
            steps.append(component(String(part)))
        }
    }
    return ReferencePath(steps)
}

private func component(_ part: String) -> PathStep {
    if part == "value" { return .boxValue }
    if part == "member" { return .setMember }
    if part.hasPrefix("capture["), let index = Int(part.dropFirst(8).dropLast()) { return .capture(index) }
    if part.hasPrefix("[\""), part.hasSuffix("]") {
        return .dictionaryValue(DictionaryKey(kind: .string, text: String(part.dropFirst().dropLast())))
    }
    if part.hasPrefix("["), part.hasSuffix("]"), let index = Int(part.dropFirst().dropLast()) { return .element(index) }
    if let first = part.first, first.isNumber { return .tupleElement(part) }
    return .property(part)
}
