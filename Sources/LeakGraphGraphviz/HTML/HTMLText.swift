/// Writing HTML text safely.
enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references, usable in element content and in
    /// quoted attribute values; control characters other than line feed and tab become `�`.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n", "\t": result.unicodeScalars.append(scalar)
            default: result.unicodeScalars.append(DOTText.isControl(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return result
    }

    /// The `<svg …>…</svg>` element of an SVG document, without the XML declaration, doctype and
    /// comments before it (an inline SVG in HTML must not carry them); `nil` when there is no `<svg`.
    static func inlineSVG(_ document: String) -> String? {
        guard let start = document.firstRange(of: "<svg") else { return nil }
        var element = document[start.lowerBound...]
        if let end = element.ranges(of: "</svg>").last {
            element = element[..<end.upperBound]
        }
        return String(element)
    }
}
