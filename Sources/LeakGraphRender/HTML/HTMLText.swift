/// Writing HTML text safely.
public enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references, usable in element content, in
    /// quoted attribute values and inside Graphviz's HTML-like labels; control characters become `�`
    /// (line feed and tab are kept unless `keepingLineBreaks` is false). The one HTML escaping of LeakGraph.
    public static func escaped(_ text: String, keepingLineBreaks: Bool = true) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            case "\n" where keepingLineBreaks, "\t" where keepingLineBreaks: result.unicodeScalars.append(scalar)
            default: result.unicodeScalars.append(DOTText.isControl(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        return result
    }

    /// The `<svg …>…</svg>` element of an SVG document, without the XML declaration, doctype and
    /// comments before it (an inline SVG in HTML must not carry them); `nil` when there is no `<svg`.
    public static func inlineSVG(_ document: String) -> String? {
        guard let start = document.firstRange(of: "<svg") else { return nil }
        var element = document[start.lowerBound...]
        if let end = element.ranges(of: "</svg>").last {
            element = element[..<end.upperBound]
        }
        return String(element)
    }
}
