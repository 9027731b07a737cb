extension AllocationProfile.Site {
    /// `Widgets.swift:9 in makeWidgets(_:)`: the place and the function in short
    /// (``AllocationProfile/shortFunction(_:)``); `(no creation stack)` without one.
    public var siteText: String {
        guard let function else { return "(no creation stack)" }
        let name = AllocationProfile.shortFunction(function)
        return file.map { "\(ReportNaming.place(file: $0, line: line)) in \(name)" } ?? name
    }

    /// `Widget × 100 at Widgets.swift:9 in makeWidgets(_:)` (the type without its module).
    public var text: String {
        "\(ReportNaming.shortName(type)) × \(ReportNaming.grouped(objects)) at \(siteText)"
    }
}

extension AllocationProfile {
    /// A demangled function name in short, as a person writes it: `makeWidgets(_:)` for
    /// `App.makeWidgets(Swift.Int) -> [App.Widget]`, `Widgets.make(count:)` for
    /// `App.Widgets.make(count: Swift.Int) -> ()`, `closure #1 in Feed.load()` for a closure in it. The
    /// module, parameter types and result are dropped; anything not read that way is returned unchanged.
    public static func shortFunction(_ function: String) -> String {
        var text = Substring(function)
        // Async code: `(1) suspend resume partial function for closure #1 …` is a part of the closure.
        if text.hasPrefix("("), let close = text.firstIndex(of: ")"),
            text[text.index(after: text.startIndex)..<close].allSatisfy(\.isNumber)
        {
            for part in [") suspend resume partial function for ", ") await resume partial function for "]
            where text[close...].hasPrefix(part) {
                text = text[text.index(close, offsetBy: part.count)...]
                break
            }
        }
        for prefix in ["merged ", "specialized ", "static "] where text.hasPrefix(prefix) {
            text = text.dropFirst(prefix.count)
        }
        if text.hasPrefix("generic specialization <"),
            let of = topLevelRange(of: " of ", in: text.dropFirst("generic specialization ".count))
        {
            text = text[of.upperBound...]
        }
        if text.hasPrefix("closure #") || text.hasPrefix("implicit closure #") {
            // `closure #1 () -> () in App.Feed.load() -> ()`: the closure, then where it is.
            guard let inRange = topLevelRange(of: " in ", in: text) else { return String(text) }
            let words = text.hasPrefix("implicit") ? 3 : 2
            let name = text[..<inRange.lowerBound].split(separator: " ").prefix(words).joined(separator: " ")
            return name + " in " + shortFunction(String(text[inRange.upperBound...]))
        }
        guard let open = topLevelIndex(of: "(", in: text) else {
            return dropModule(String(text.prefix { $0 != " " }))
        }
        var name = text[..<open]
        guard !name.isEmpty, !name.contains(" "), let close = matching(open, in: text) else { return String(text) }
        if name.hasSuffix(">"), let generic = name.lastIndex(of: "<"), !name[generic...].dropFirst().contains("<") {
            name = name[..<generic]  // `fill<A>`: the generic parameters are not written at a use
        }
        let parameters = text[text.index(after: open)..<close]
        let labels = splitTopLevel(parameters).map { parameter -> String in
            let trimmed = parameter.drop { $0 == " " }
            guard let colon = topLevelIndex(of: ":", in: trimmed),
                trimmed[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !trimmed[..<colon].isEmpty
            else { return "_:" }
            return trimmed[..<colon] + ":"
        }
        return dropModule(String(name)) + "(" + labels.joined() + ")"
    }

    /// `App.Widgets.make` → `Widgets.make`; a single component stays.
    private static func dropModule(_ name: String) -> String {
        let short = ReportNaming.shortName(name)
        return short.isEmpty ? name : short
    }

    /// The first `character` outside brackets and parentheses.
    private static func topLevelIndex(of character: Character, in text: Substring) -> Substring.Index? {
        var depth = 0
        for index in text.indices {
            let c = text[index]
            if c == character && depth == 0 { return index }
            if c == "(" || c == "<" || c == "[" { depth += 1 }
            if c == ")" || c == ">" && (index == text.startIndex || text[text.index(before: index)] != "-") || c == "]"
            {
                depth -= 1
            }
        }
        return nil
    }

    /// The first `needle` outside brackets and parentheses.
    private static func topLevelRange(of needle: String, in text: Substring) -> Range<Substring.Index>? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if depth == 0 && text[index...].hasPrefix(needle) {
                return index..<text.index(index, offsetBy: needle.count)
            }
            if c == "(" || c == "<" || c == "[" { depth += 1 }
            if c == ")" || c == ">" && (index == text.startIndex || text[text.index(before: index)] != "-") || c == "]"
            {
                depth -= 1
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The parenthesis closing the one at `open`.
    private static func matching(_ open: Substring.Index, in text: Substring) -> Substring.Index? {
        var depth = 0
        for index in text[open...].indices {
            if text[index] == "(" { depth += 1 }
            if text[index] == ")" {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        return nil
    }

    /// `text` split at commas outside brackets; empty for an empty text.
    private static func splitTopLevel(_ text: Substring) -> [Substring] {
        guard !text.isEmpty else { return [] }
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            let c = text[index]
            if c == "(" || c == "<" || c == "[" { depth += 1 }
            if c == ")" || c == ">" && (index == text.startIndex || text[text.index(before: index)] != "-") || c == "]"
            {
                depth -= 1
            }
            if c == "," && depth == 0 {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts
    }
}
