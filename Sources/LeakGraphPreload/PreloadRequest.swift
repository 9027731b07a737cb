import CLeakGraphContract
import LeakGraphReport

/// What `leakgraph run` asked of the preload library (`CLeakGraphContract.h`), and the program
/// facts the report names.
struct PreloadRequest {
    /// Where the JSON report goes (`LEAKGRAPH_OUTPUT`); the other files go beside it.
    var outputPath: String
    /// The program as the report names it: the path `LEAKGRAPH_PROGRAM` gave, the process's
    /// arguments without the executable, and the status passed to `exit`.
    var program: LeakReport.Program
    /// Whether to write the text summary beside the report (`LG_RENDER_TEXT`).
    var rendersText: Bool
    /// Whether to write the report pretty-printed, as `leakgraph run --json` does
    /// (`LG_RENDER_PRETTY_JSON`), instead of compact.
    var rendersPrettyJSON: Bool

    /// The request, from the contract's values.
    /// - Parameter render: the `LG_RENDER_BIT_*` bits of `LEAKGRAPH_RENDER`.
    init(outputPath: String, programPath: String, arguments: [String], exitStatus: Int32, render: UInt32) {
        self.outputPath = outputPath
        self.program = LeakReport.Program(path: programPath, arguments: arguments, exitStatus: Int(exitStatus))
        self.rendersText = render & LG_RENDER_BIT_TEXT != 0
        self.rendersPrettyJSON = render & LG_RENDER_BIT_PRETTY_JSON != 0
    }

    /// The `LEAKGRAPH_RENDER` words of what is rendered beside the report, for the synopsis.
    var renderedWords: [String] {
        (rendersText ? [LG_RENDER_TEXT] : []) + (rendersPrettyJSON ? [LG_RENDER_PRETTY_JSON] : [])
    }

    /// Whether anything beyond the compact report was asked for (then a synopsis is written too).
    var rendersAnything: Bool { rendersText || rendersPrettyJSON }
}
