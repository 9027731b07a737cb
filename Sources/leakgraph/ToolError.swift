/// A failure of the tool itself (not a leak): printed as one `leakgraph: <message>` line on standard
/// error, exit status 2.
struct ToolError: Error, Equatable {
    /// The sentence shown after `leakgraph: `.
    var message: String

    /// The exit status of every usage and tool error.
    static let exitStatus: Int32 = 2

    /// Creates an error with the sentence to show.
    init(_ message: String) {
        self.message = message
    }
}
