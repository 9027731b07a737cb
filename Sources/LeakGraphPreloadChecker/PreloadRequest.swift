import CLeakGraphContract
import LeakGraphRender
import LeakGraphReport

/// What `leakgraph run` asked of the preload library (`CLeakGraphContract.h`), and the program
/// facts the report names.
struct PreloadRequest {
    /// Where the JSON report goes (`LEAKGRAPH_OUTPUT`); the other files go beside it.
    var outputPath: String
    /// The program as the report names it: the path `LEAKGRAPH_PROGRAM` gave, the process's
    /// arguments without the executable, and the status passed to `exit`.
    var program: LeakReport.Program
    /// The `LG_RENDER_BIT_*` bits of `LEAKGRAPH_RENDER`.
    var render: UInt32

    /// The request, from the contract's values.
    init(outputPath: String, programPath: String, arguments: [String], exitStatus: Int32, render: UInt32) {
        self.outputPath = outputPath
        self.program = LeakReport.Program(path: programPath, arguments: arguments, exitStatus: Int(exitStatus))
        self.render = render
    }

    /// Whether `LEAKGRAPH_RENDER` listed nothing this library knows: then the compact JSON report
    /// alone is written, as by libraries that predate it.
    var isReportOnly: Bool { render == 0 }
    /// Whether to write the text summary without its header (`LG_RENDER_TEXT`).
    var rendersText: Bool { render & LG_RENDER_BIT_TEXT != 0 }
    /// Whether to write the JSON report pretty-printed (`LG_RENDER_PRETTY_JSON`).
    var rendersPrettyJSON: Bool { render & LG_RENDER_BIT_PRETTY_JSON != 0 }
    /// Whether to write the JSON report at all (`LG_RENDER_JSON` or `LG_RENDER_PRETTY_JSON`).
    var rendersJSON: Bool { render & (LG_RENDER_BIT_JSON | LG_RENDER_BIT_PRETTY_JSON) != 0 }

    /// How the text is written: every cycle in full (`LG_RENDER_EXPAND`), every diagnostic (`LG_RENDER_VERBOSE`).
    var textOptions: TextReport.Options {
        TextReport.Options(expand: render & LG_RENDER_BIT_EXPAND != 0, verbose: render & LG_RENDER_BIT_VERBOSE != 0)
    }

    /// The `LEAKGRAPH_RENDER` words of what was written, for the synopsis.
    var renderedWords: [String] {
        [
            (LG_RENDER_BIT_TEXT, LG_RENDER_TEXT), (LG_RENDER_BIT_JSON, LG_RENDER_JSON),
            (LG_RENDER_BIT_PRETTY_JSON, LG_RENDER_PRETTY_JSON), (LG_RENDER_BIT_EXPAND, LG_RENDER_EXPAND),
            (LG_RENDER_BIT_VERBOSE, LG_RENDER_VERBOSE),
        ]
        .filter { render & $0.0 != 0 }.map(\.1)
    }
}
