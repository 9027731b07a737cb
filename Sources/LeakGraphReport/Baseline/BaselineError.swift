/// Why a file could not be read as a LeakGraph baseline.
///
/// ``code`` says which kind of failure it is (new codes may be added); ``message`` says it in one
/// sentence, naming the line.
public struct BaselineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, Hashable {
            case missingVersion, unsupportedVersion, malformedLine
        }

        let value: Value

        /// No `version:` line before the first entry: not a baseline, or one written by hand without it.
        public static var missingVersion: Self { Self(value: .missingVersion) }
        /// The version is newer than this build reads, or not a valid version.
        public static var unsupportedVersion: Self { Self(value: .unsupportedVersion) }
        /// A line is not a comment, a blank line or an entry this version knows.
        public static var malformedLine: Self { Self(value: .malformedLine) }

        /// The code's name, e.g. `unsupportedVersion`.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// The line the failure is on (1-based), when it is on one.
    public let line: Int?
    /// A sentence saying what is wrong, for a person.
    public let message: String

    /// Creates an error.
    public init(code: Code, line: Int?, message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    /// The message, after `line N: ` when it is on a line.
    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
