import Foundation
import LeakGraphGraphviz
import LeakGraphRender
import LeakGraphReport

/// The graph outputs shared by `leakgraph run` and `leakgraph report`: `--dot`, `--svg` and `--html`.
///
/// **Files.** The graphs are those of `DOTRenderer.graphs(for:)`. With exactly one graph (a report with
/// one root cycle and nothing outside it) `PATH` gets it. Otherwise `PATH` gets the overview and each
/// root cycle `N` its own file beside it, named `PATH` with `-cycle-N` before the extension
/// (`ring.svg` → `ring-cycle-1.svg`, `ring-cycle-2.svg`, …); the same for `--dot`. Files of an earlier
/// run with more cycles are not removed. `--html` is one self-contained file with every graph inline.
extension ReportOutput {
    /// Fails early when a `--dot`, `--svg` or `--html` file cannot be created (see ``checkWritable(_:what:)``).
    /// - Returns: the checked outputs with their flags.
    @discardableResult
    static func checkGraphOutputsWritable(dot: String?, svg: String?, html: String?) throws(ToolError)
        -> [(flag: String, file: OutputFile)]
    {
        var files: [(flag: String, file: OutputFile)] = []
        if let dot { files.append(("--dot", try checkWritable(dot, what: "DOT graph"))) }
        if let svg { files.append(("--svg", try checkWritable(svg, what: "SVG graph"))) }
        if let html { files.append(("--html", try checkWritable(html, what: "HTML report"))) }
        return files
    }

    /// Draws `report` and writes the DOT text, the SVGs and the HTML report to the paths given (each
    /// optional; nothing happens when all are `nil`). SVGs are laid out in-process by libgvc. A progress
    /// bar appears on standard error when the rendering takes more than a second.
    ///
    /// - Throws: ``ToolError`` when Graphviz fails or a file cannot be written.
    static func writeGraphOutputs(
        report: LeakReport, dot: String?, svg: String?, html: String?, context: RenderContext = RenderContext()
    ) throws(ToolError) {
        guard dot != nil || svg != nil || html != nil else { return }
        var progress = RenderProgress(what: "rendering graphs")
        defer { progress.finish() }
        let graphs = DOTRenderer.graphs(for: report)
        progress.update(done: 0, total: graphs.count)
        if let dot {
            try writeGraphFiles(graphs.map { ($0, $0.text) }, to: dot, kind: "DOT")
        }
        guard svg != nil || html != nil else { return }
        let rendered: [RenderedGraph]
        do {
            rendered = try SVGRenderer.render(graphs) { done, total in
                progress.update(done: done, total: total)
            }
        } catch {
            throw ToolError("cannot draw the memory graph: \(error.message)")
        }
        if let svg {
            try writeGraphFiles(rendered.map { ($0.graph, $0.svg) }, to: svg, kind: "SVG")
        }
        if let html {
            let page = HTMLReport.render(report, graphs: rendered, context: context)
            try write(Data(page.utf8), to: html, what: "HTML report")
        }
    }

    /// Writes each graph's `content` to the file ``graphFilePath(_:graph:isPrimary:)`` names, and says on
    /// standard error where they went when there is more than one file.
    private static func writeGraphFiles(_ files: [(graph: DOTGraph, content: String)], to path: String, kind: String)
        throws(ToolError)
    {
        var written: [String] = []
        for (offset, file) in files.enumerated() {
            let target = graphFilePath(path, graph: file.graph, isPrimary: offset == 0)
            try write(Data(file.content.utf8), to: target, what: "\(kind) graph")
            written.append(target)
        }
        if written.count > 1, let first = written.first, let last = written.last {
            let range = written.count == 2 ? last : "\(written[1]) … \(last)"
            printError("leakgraph: \(kind) graphs written to \(first) (overview) and \(range)")
        }
    }

    /// Where a graph goes: `path` itself for the first (primary) graph, else `path` with `-<graph name>`
    /// before its extension: `/tmp/ring.svg` → `/tmp/ring-cycle-2.svg`; `/tmp/ring` → `/tmp/ring-cycle-2`.
    static func graphFilePath(_ path: String, graph: DOTGraph, isPrimary: Bool) -> String {
        guard !isPrimary else { return path }
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let fileName = path[slash...]
        if let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex {
            return path[..<dot] + "-" + graph.name + path[dot...]
        }
        return path + "-" + graph.name
    }
}
