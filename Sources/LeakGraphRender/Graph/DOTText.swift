/// Writing DOT: quoted strings, HTML-like labels and attribute lists, escaped so that any type name,
/// label or file name reads back exactly as it was.
enum DOTText {
    /// `text` as a double-quoted DOT string for a label (an `escString`).
    ///
    /// - `\` becomes `\\` and `"` becomes `\"` (the DOT lexer and Graphviz's label escapes);
    /// - a line break becomes `\n` (a centred line break in labels);
    /// - `&` becomes `&amp;`: Graphviz turns entities in labels into characters, so a literal `&lt;` in a
    ///   name must not;
    /// - other control characters become `�` (they are not valid in the SVG's XML).
    static func quoted(_ text: String) -> String {
        var result = "\""
        result.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "&": result += "&amp;"
            default: result.unicodeScalars.append(isControl(scalar) ? "\u{FFFD}" : scalar)
            }
        }
        result += "\""
        return result
    }

    /// `text` as a double-quoted DOT string for a tooltip.
    ///
    /// Graphviz expands `\N`, `\G`, … in tooltips even after an escaped backslash, so a backslash is
    /// written as `⧵` (U+29F5) there; line breaks become `\n`, everything else as in ``quoted(_:)``.
    static func quotedTooltip(_ text: String) -> String {
        quoted(text.replacing("\\", with: "\u{29F5}"))
    }

    /// `text` escaped for the inside of an HTML-like label (`<…>`): ``HTMLText/escaped(_:keepingLineBreaks:)``
    /// without line breaks (a label breaks lines with `<BR/>`).
    static func htmlEscaped(_ text: String) -> String {
        HTMLText.escaped(text, keepingLineBreaks: false)
    }

    /// `[key="value", …]` for attributes whose values are already written (quoted or HTML-like); empty when
    /// there are none.
    static func attributeList(_ attributes: [(key: String, value: String)]) -> String {
        guard !attributes.isEmpty else { return "" }
        return " [" + attributes.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "]"
    }

    /// C0 and C1 control characters and DEL (tab included: labels have no use for it).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
