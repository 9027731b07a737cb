import LeakGraphModel

/// Why a snapshot could not be read or written: one sentence naming the file and the cause, and a
/// ``SnapshotFileErrorCode`` to branch on.
public typealias SnapshotFileError = CodedError<SnapshotFileErrorCode>

/// What went wrong with a snapshot file.
public struct SnapshotFileErrorCode: Sendable, Hashable, CustomStringConvertible {
    fileprivate enum Value: String {
        case unreadable, notASnapshot, newerFormat, olderFormat, damaged, cannotWrite
    }
    fileprivate let value: Value

    /// The file does not exist or cannot be opened.
    public static var unreadable: Self { Self(value: .unreadable) }
    /// The file is neither a LeakGraph snapshot nor a leak report.
    public static var notASnapshot: Self { Self(value: .notASnapshot) }
    /// A newer LeakGraph wrote it, in a format this build does not know.
    public static var newerFormat: Self { Self(value: .newerFormat) }
    /// An older LeakGraph wrote it, in a format this build no longer reads.
    public static var olderFormat: Self { Self(value: .olderFormat) }
    /// The file is truncated or damaged.
    public static var damaged: Self { Self(value: .damaged) }
    /// The snapshot could not be written.
    public static var cannotWrite: Self { Self(value: .cannotWrite) }

    /// The code's name.
    public var description: String { value.rawValue }
}
