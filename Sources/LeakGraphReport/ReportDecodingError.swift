import LeakGraphModel

/// Why a file could not be read as a LeakGraph JSON report.
///
/// ``CodedError/code`` says which kind of failure it is (``ReportDecodingErrorCode``; new codes may be
/// added); ``CodedError/message`` says it in a sentence for a person.
public typealias ReportDecodingError = CodedError<ReportDecodingErrorCode>

/// The kind of ``ReportDecodingError``.
public struct ReportDecodingErrorCode: Sendable, Hashable, CustomStringConvertible {
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
