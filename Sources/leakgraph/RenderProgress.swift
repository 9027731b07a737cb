import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A progress indicator on standard error for renders that take a while.
///
/// Nothing is shown for the first second (most renders finish sooner). After that, on a terminal a bar
/// is redrawn in place (`leakgraph: rendering graphs [██████░░░░░░] 6/12`) and erased at the end; when
/// standard error is not a terminal, one line says the work started and one how long it took.
struct RenderProgress {
    /// What is being done, shown after `leakgraph: `.
    let what: String
    /// When the work started.
    private let start = Date()
    /// Whether standard error is a terminal.
    private let isTerminal = isatty(STDERR_FILENO) == 1
    /// Whether anything was shown yet.
    private var shown = false
    /// The quiet period before anything is shown, in seconds.
    static let delay: TimeInterval = 1
    /// Bar width in characters.
    static let barWidth = 24

    /// Starts timing `what`.
    init(what: String) {
        self.what = what
    }

    /// Reports that `done` of `total` steps are finished.
    mutating func update(done: Int, total: Int) {
        guard Date().timeIntervalSince(start) >= Self.delay, total > 0 else { return }
        if isTerminal {
            let filled = min(Self.barWidth, Self.barWidth * done / total)
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: Self.barWidth - filled)
            writeToStandardError("\r\u{1B}[2Kleakgraph: \(what) [\(bar)] \(done)/\(total)")
        } else if !shown {
            writeToStandardError("leakgraph: \(what) (\(done)/\(total) done)…\n")
        }
        shown = true
    }

    /// Ends the display: erases the bar, or says how long the work took.
    mutating func finish() {
        guard shown else { return }
        if isTerminal {
            writeToStandardError("\r\u{1B}[2K")
        } else {
            let seconds = Date().timeIntervalSince(start)
            writeToStandardError("leakgraph: \(what) took \(String(format: "%.1f", seconds)) s\n")
        }
        shown = false
    }
}
