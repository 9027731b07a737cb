import CLeakGraphContract
import LeakGraphRender
import LeakGraphReport

/// What `leakgraph run` asks the preload library to write at exit (`LG_ENV_RENDER`), so that it
/// need not decode the report itself.
///
/// The checked program already holds the report value at exit; rendering the text summary and the
/// `--json` layout there costs a fraction of decoding the JSON again in the CLI (Foundation's
/// `JSONDecoder`: 1.3 s for 100,000 leaks, docs/performance.md), and without `--json` no JSON is
/// written at all. The graphs (`--dot`, `--svg`, `--html`) need libgvc, which the preload library
/// does not link, and JUnit and SARIF (`--junit`, `--sarif`) are written by the CLI: when any is
/// asked, nothing is asked (the library writes the compact JSON report) and the CLI decodes the report.
struct ChildRendering: Equatable {
    /// Render the text summary without its header (`LG_RENDER_TEXT`).
    var text = false
    /// Write the JSON report pretty-printed, the `--json` layout (`LG_RENDER_PRETTY_JSON`).
    var prettyJSON = false
    /// How the text is written (`LG_RENDER_EXPAND`, `LG_RENDER_VERBOSE`).
    var textOptions = TextReport.Options()

    /// Asks for nothing: the library writes the compact JSON report alone.
    init() {}

    /// What the outputs need: nothing when a graph is asked for, else the text summary (for the
    /// file or the terminal) and the pretty JSON report when `--json` is given.
    init(for outputs: OutputOptions) {
        guard !outputs.needsDecodedReport else { return }
        text = true
        prettyJSON = outputs.jsonPath != nil
        textOptions = outputs.textOptions
    }

    /// Whether nothing is asked.
    var isEmpty: Bool { !text && !prettyJSON }

    /// The `LG_ENV_RENDER` words, in contract order.
    var words: [String] {
        (text ? [LG_RENDER_TEXT] : []) + (prettyJSON ? [LG_RENDER_PRETTY_JSON] : [])
            + (text && textOptions.expand ? [LG_RENDER_EXPAND] : [])
            + (text && textOptions.verbose ? [LG_RENDER_VERBOSE] : [])
    }
}
