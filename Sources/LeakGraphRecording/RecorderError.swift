import CLeakGraphHook
import LeakGraphModel

/// Why ``Recorder/install(maxFrames:)`` refused to install the allocation hook.
///
/// A refusal changes nothing in the running program. The ``CodedError/message`` is one sentence meant for a
/// person; the code (``RecorderErrorCode``) is meant for code.
public typealias RecorderError = CodedError<RecorderErrorCode>

/// What kind of refusal a ``RecorderError`` is. New codes may be added without breaking callers.
public struct RecorderErrorCode: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Int32, Sendable, Hashable {
        case unsupportedPlatform = 1
        case runtimeNotFound = 2
        case unsupportedRuntime = 3
        case invalidArgument = 4
        case conflict = 5
        case outOfMemory = 6
        case unknown = -1
    }

    let storage: Storage

    init(status: Int32) {
        storage = Storage(rawValue: status) ?? .unknown
    }

    private init(_ storage: Storage) {
        self.storage = storage
    }

    /// Not Linux on x86_64 or arm64.
    public static var unsupportedPlatform: Self { Self(.unsupportedPlatform) }
    /// No dynamically linked Swift runtime with the allocation hook point was found.
    public static var runtimeNotFound: Self { Self(.runtimeNotFound) }
    /// The Swift runtime was found but cannot be hooked safely (unknown version, or the
    /// Swift 6.3 retain-adapter workaround cannot be applied).
    public static var unsupportedRuntime: Self { Self(.unsupportedRuntime) }
    /// An argument was out of range.
    public static var invalidArgument: Self { Self(.invalidArgument) }
    /// The hook is already installed in a different mode.
    public static var conflict: Self { Self(.conflict) }
    /// Memory for the hook's tables ran out.
    public static var outOfMemory: Self { Self(.outOfMemory) }
    /// A status this version of LeakGraphRecording does not know.
    public static var unknown: Self { Self(.unknown) }

    /// The code's name.
    public var description: String {
        switch storage {
        case .unsupportedPlatform: "unsupportedPlatform"
        case .runtimeNotFound: "runtimeNotFound"
        case .unsupportedRuntime: "unsupportedRuntime"
        case .invalidArgument: "invalidArgument"
        case .conflict: "conflict"
        case .outOfMemory: "outOfMemory"
        case .unknown: "unknown"
        }
    }
}
