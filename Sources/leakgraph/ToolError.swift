/// A failure of the tool itself (not a leak): printed as one `leakgraph: <message>` line on standard
/// error, exit status 2 (``ErrorMessage`` maps every error the command can end with, in one place).
struct ToolError: Error, Equatable {
    /// What kind of failure it is, where a caller acts on the kind (never on the message's text).
    enum Code: Equatable, Sendable {
        /// The tool could not do its job.
        case failed
        /// An output could not be written (the others were).
        case outputNotWritten
        /// The text summary's file could not be written: the summary went to the terminal instead.
        case textSummaryNotWritten
    }

    /// The sentence shown after `leakgraph: `.
    var message: String
    /// What kind of failure it is.
    var code: Code
    /// The signal that ended the checked program, when that is why there is no report: `leakgraph`
    /// then ends with the same signal (exits as the program did) instead of exit status 2.
    var signal: Int32?

    /// The exit status of every usage and tool error.
    static let exitStatus: Int32 = 2

    /// Creates an error with the sentence to show.
    init(_ message: String, code: Code = .failed, signal: Int32? = nil) {
        self.message = message
        self.code = code
        self.signal = signal
    }
}
