/// Why a file could not be read as a LeakGraph JSON report.
///
/// ``code`` says which kind of failure it is (new codes may be added); ``message`` says it in a sentence
/// for a person.
public struct ReportDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, Hashable {
            case damagedJSON, notALeakReport, unsupportedSchemaVersion, invalidReport
        }

        let value: Value

        /// The data is not valid JSON (truncated, not text, not JSON at all).
        public static var damagedJSON: Self { Self(value: .damagedJSON) }
        /// The data is JSON but has no integer `schemaVersion` at its top level: another tool's file.
        public static var notALeakReport: Self { Self(value: .notALeakReport) }
        /// The report's schema version is newer than this build reads, or not a valid version.
        public static var unsupportedSchemaVersion: Self { Self(value: .unsupportedSchemaVersion) }
        /// The schema version is supported but the report's fields do not match it (missing or mistyped).
        public static var invalidReport: Self { Self(value: .invalidReport) }

        /// The code's name, e.g. `unsupportedSchemaVersion`.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence saying what is wrong, for a person.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
