/// An error of LeakGraph: a code to branch on and one sentence for people.
///
/// Each failure domain names its own code type and an alias, e.g.
/// `public typealias SnapshotFileError = CodedError<SnapshotFileErrorCode>`: `SnapshotFileError.Code` is
/// then its code type, whose static members (`.damaged`) are the kinds of failure; new kinds may be
/// added without breaking callers. Code never branches on ``message``.
public struct CodedError<ErrorCode: Sendable & Hashable>: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, for code.
    public typealias Code = ErrorCode

    /// The kind of failure.
    public let code: Code
    /// One sentence saying what went wrong, for a person.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
