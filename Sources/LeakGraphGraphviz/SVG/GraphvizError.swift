import LeakGraphModel

/// Why Graphviz could not turn DOT text into SVG: ``GraphvizErrorCode`` and one sentence for people,
/// with Graphviz's own messages when it gave any.
public typealias GraphvizError = CodedError<GraphvizErrorCode>

/// The kind of ``GraphvizError``; new kinds may be added.
public struct GraphvizErrorCode: Sendable, Hashable, CustomStringConvertible {
    enum Value: String {
        case pluginsMissing = "plugins missing"
        case invalidDOT = "invalid DOT"
        case layoutFailed = "layout failed"
        case renderFailed = "render failed"
    }

    let value: Value

    /// The layout engine or the SVG renderer is not installed (libgvc's plugins were not found).
    public static var pluginsMissing: Self { Self(value: .pluginsMissing) }
    /// cgraph could not parse the DOT text.
    public static var invalidDOT: Self { Self(value: .invalidDOT) }
    /// The layout engine failed.
    public static var layoutFailed: Self { Self(value: .layoutFailed) }
    /// Rendering the laid-out graph to SVG failed.
    public static var renderFailed: Self { Self(value: .renderFailed) }

    /// A short name of the kind.
    public var description: String { value.rawValue }
}
