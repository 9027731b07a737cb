/// A failure of the tool itself (not a leak): printed as one `leakgraph: <message>` line on standard
/// error, exit status 2.
struct ToolError: Error, Equatable {
    /// The sentence shown after `leakgraph: `.
    var message: String
    /// The signal that ended the checked program, when that is why there is no report: `leakgraph`
    /// then ends with the same signal (exits as the program did) instead of exit status 2.
    var signal: Int32?
    /// What failed, for code that must tell one failure from another (never by the message's text).
    var code: Code = .failed

    /// The kinds of tool failure that callers tell apart.
    enum Code: Equatable {
        /// Any failure with nothing more to know than its message.
        case failed
        /// The text summary could not be written to its `--text` file (it went to the terminal instead).
        case textSummaryNotWritten
    }

    /// The exit status of every usage and tool error.
    static let exitStatus: Int32 = 2

    /// Creates an error with the sentence to show.
    init(_ message: String, signal: Int32? = nil) {
        self.message = message
        self.signal = signal
    }
}
