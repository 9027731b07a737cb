import CGraphviz
import LeakGraphRender

#if canImport(Glibc)
    import Glibc
#endif

/// Lays out DOT text and renders it to SVG with libgvc, in this process (never by running `dot`).
///
/// The calls are `agmemread` (parse), `gvLayout` (the chosen engine), `gvRenderData` (`svg`),
/// `gvFreeRenderData`, `gvFreeLayout` and `agclose`, on one shared context (see `GraphvizContext`);
/// renders are serialized, because Graphviz keeps global state.
public enum SVGRenderer {
    /// The SVG of `graph`, laid out with the engine the graph was made for.
    /// - Throws: ``GraphvizError`` when the text does not parse, the layout or the rendering fails, or
    ///   Graphviz's plugins are missing.
    public static func render(_ graph: DOTGraph) throws(GraphvizError) -> String {
        try render(dot: graph.text, engine: graph.engine)
    }

    /// The SVG of the DOT text `dot` (its first graph), laid out with `engine`.
    /// - Throws: ``GraphvizError`` when the text does not parse, the layout or the rendering fails, or
    ///   Graphviz's plugins are missing.
    public static func render(dot: String, engine: LayoutEngine) throws(GraphvizError) -> String {
        try GraphvizContext.withContext { (context) throws(GraphvizError) -> String in
            guard let graph = agmemread(dot) else {
                throw GraphvizError(code: .invalidDOT, message: message("Graphviz could not read the DOT text"))
            }
            defer { agclose(graph) }
            guard gvLayout(context, graph, engine.rawValue) == 0 else {
                throw GraphvizError(code: .layoutFailed, message: message("the \(engine.rawValue) layout failed"))
            }
            defer { gvFreeLayout(context, graph) }
            var buffer: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            let status = gvRenderData(context, graph, "svg", &buffer, &length)
            defer {
                if let buffer { gvFreeRenderData(buffer) }
            }
            guard status == 0, let buffer else {
                throw GraphvizError(code: .renderFailed, message: message("rendering the graph to SVG failed"))
            }
            return String(decoding: UnsafeRawBufferPointer(start: buffer, count: Int(length)), as: UTF8.self)
        }
    }

    /// Lays out and renders each of `graphs`, in order, calling `progress(done, total)` after each.
    /// - Throws: ``GraphvizError`` for the first graph that fails, naming it.
    public static func render(
        _ graphs: [DOTGraph], progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(GraphvizError) -> [RenderedGraph] {
        var result: [RenderedGraph] = []
        result.reserveCapacity(graphs.count)
        for graph in graphs {
            do {
                result.append(RenderedGraph(graph: graph, svg: try render(graph)))
            } catch {
                throw GraphvizError(code: error.code, message: "\(graph.title): \(error.message)")
            }
            progress(result.count, graphs.count)
        }
        return result
    }

    /// `sentence`, followed by Graphviz's own messages (`Error: syntax error in line 1 near '}'`).
    private static func message(_ sentence: String) -> String {
        let messages = GraphvizContext.takeMessages()
        return messages.isEmpty ? sentence : sentence + ": " + messages.joined(separator: "; ")
    }
}
