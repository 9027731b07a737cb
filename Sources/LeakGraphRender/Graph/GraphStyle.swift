/// Colours and attributes of LeakGraph's graphs, in one place.
///
/// Cycle members are light red with a bold red border; objects a cycle holds are grey; leaked objects
/// outside every cycle are light yellow. Strong references inside a cycle are red, other strong
/// references dark grey, weak/unowned/unmanaged ones dashed light grey; the suspect reference is red,
/// thick, and labelled `⚠ suspect`.
enum GraphStyle {
    static let fontName = "Helvetica"

    static let graphAttributes: [(key: String, value: String)] = [
        ("fontname", DOTText.quoted(fontName)), ("fontsize", "12"), ("labelloc", "\"t\""), ("labeljust", "\"l\""),
        ("pad", "\"0.25\""), ("nodesep", "\"0.35\""), ("ranksep", "\"0.45\""), ("bgcolor", "\"white\""),
    ]
    static let sfdpAttributes: [(key: String, value: String)] = [
        ("overlap", "\"prism\""), ("outputorder", "\"edgesfirst\""), ("sep", "\"+6\""),
    ]
    static let nodeDefaults: [(key: String, value: String)] = [
        ("shape", "\"box\""), ("style", "\"rounded,filled\""), ("fontname", DOTText.quoted(fontName)),
        ("fontsize", "11"), ("margin", "\"0.12,0.05\""),
    ]
    static let edgeDefaults: [(key: String, value: String)] = [
        ("fontname", DOTText.quoted(fontName)), ("fontsize", "9"), ("arrowsize", "0.7"),
    ]

    /// The colour of the detail line under a node's type.
    static let detailColor = "#555555"
    /// The colour of the suspect reference.
    static let suspectColor = "red"

    /// Fill, border and border width of a node.
    static func nodeAttributes(_ role: GraphBuilder.Role) -> [(key: String, value: String)] {
        switch role {
        case .member:
            return [("fillcolor", "\"#ffd9d9\""), ("color", "\"#c62828\""), ("penwidth", "2")]
        case .held:
            return [("fillcolor", "\"#e6e6e6\""), ("color", "\"#8a8a8a\""), ("penwidth", "1")]
        case .unlisted:
            return [("fillcolor", "\"#fff4c2\""), ("color", "\"#b8860b\""), ("penwidth", "1")]
        case .note:
            return [("shape", "\"plaintext\""), ("style", "\"\""), ("fontcolor", "\"#555555\"")]
        }
    }

    /// Colour, width and dash of an edge.
    static func edgeAttributes(_ kind: GraphBuilder.EdgeKind) -> [(key: String, value: String)] {
        switch kind {
        case .cycle:
            return [("color", "\"#c62828\""), ("fontcolor", "\"#9b1c1c\""), ("penwidth", "1.8")]
        case .strong:
            return [("color", "\"#5f5f5f\""), ("fontcolor", "\"#424242\"")]
        case .notStrong:
            return [
                ("color", "\"#9e9e9e\""), ("fontcolor", "\"#757575\""), ("style", "\"dashed\""),
                ("constraint", "false"),
            ]
        case .suspect:
            return [
                ("color", DOTText.quoted(suspectColor)), ("fontcolor", DOTText.quoted(suspectColor)),
                ("penwidth", "3"),
            ]
        }
    }
}
