/// The hint and reason texts of a report mark code with backticks (`` make it `weak var owner` ``), as
/// the terminal text shows them. Renderers that have a way to show code do so instead of printing
/// the backticks.
enum CodeSpans {
    /// `text` cut into runs, each prose or code; a backtick without a partner stays prose.
    static func split(_ text: String) -> [(text: Substring, isCode: Bool)] {
        var runs: [(text: Substring, isCode: Bool)] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "`") {
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(of: "`") else { break }
            if open > rest.startIndex { runs.append((rest[..<open], false)) }
            runs.append((rest[afterOpen..<close], true))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { runs.append((rest, false)) }
        return runs
    }

    /// `text` as HTML: escaped, each code span in `<code>`.
    static func html(_ text: String) -> String {
        split(text).map { run in
            run.isCode ? "<code>\(HTMLText.escaped(String(run.text)))</code>" : HTMLText.escaped(String(run.text))
        }.joined()
    }

    /// `text` as HTML, each code span in `<code>` as `abbreviating` writes it (already escaped).
    static func html(_ text: String, abbreviating: (String) -> String) -> String {
        split(text).map { run in
            run.isCode ? "<code>\(abbreviating(String(run.text)))</code>" : HTMLText.escaped(String(run.text))
        }.joined()
    }

    /// `text` for plain-text places without markup (Graphviz tooltips): each code span in single
    /// quotation marks, ‘weak var owner’.
    static func plain(_ text: String) -> String {
        split(text).map { $0.isCode ? "‘\($0.text)’" : String($0.text) }.joined()
    }
}
