import LeakGraph

#if canImport(Glibc)
    import Glibc
#endif

/// The exit check's progress on a terminal: nothing for the first second (most checks are over by
/// then), then one line redrawn in place on standard error — `leakgraph: checking: walk 45%` — and
/// erased when the check ends. Nothing when standard error is not a terminal. Written with `write(2)`:
/// it runs while the heap is frozen.
final class CheckProgress {
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var shown = false
    private var lastLine = ""

    /// The quiet period before anything is shown.
    static let delay = Duration.seconds(1)

    init() {
        start = clock.now
    }

    /// Shows `step` (and its percentage when `total` is not 0) once the delay has passed.
    func update(step: String, done: Int, total: Int) {
        guard isTerminal, clock.now - start >= Self.delay else { return }
        let line = total > 0 ? "leakgraph: checking: \(step) \(done * 100 / total)%" : "leakgraph: checking: \(step)"
        guard line != lastLine else { return }
        lastLine = line
        shown = true
        Self.write("\r\u{1B}[2K" + line)
    }

    /// Erases the line, if one was shown.
    func finish() {
        guard shown else { return }
        shown = false
        Self.write("\r\u{1B}[2K")
    }

    private static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            _ = Glibc.write(STDERR_FILENO, bytes.baseAddress, bytes.count)
        }
    }
}
