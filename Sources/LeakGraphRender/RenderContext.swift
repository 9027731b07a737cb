/// What a renderer may say about the command that made the report, beyond the report itself: the
/// command's verdict and exit status (the HTML header, JUnit properties, SARIF's invocation), and the
/// folder source files are named relative to (SARIF locations).
public struct RenderContext: Sendable, Equatable {
    /// The command, as a line (`leakgraph test --package-path App`), when known.
    public var command: String?
    /// The command's verdict line (`6 leaked objects … ; exit status 23 (leaks found)`), when known.
    public var verdict: String?
    /// The command's exit status, when known.
    public var exitStatus: Int32?
    /// The folder (absolute) source paths are given relative to, when known: the package's folder for
    /// `leakgraph test`, the current directory otherwise.
    public var sourceRoot: String?

    /// Creates a context.
    public init(command: String? = nil, verdict: String? = nil, exitStatus: Int32? = nil, sourceRoot: String? = nil) {
        self.command = command
        self.verdict = verdict
        self.exitStatus = exitStatus
        self.sourceRoot = sourceRoot
    }
}
