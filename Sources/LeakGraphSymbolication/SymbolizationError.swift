import LeakGraphModel

/// Why a ``Symbolizer`` could not be created: a ``SymbolizationErrorCode`` and a sentence for people,
/// including libdwfl's or the system's own message.
public typealias SymbolizationError = CodedError<SymbolizationErrorCode>

/// What failed, as a value that can grow new cases without breaking callers.
public struct SymbolizationErrorCode: Hashable, Sendable {
    private enum Value: Hashable, Sendable {
        case sessionUnavailable
        case processNotReadable
        case remoteFailed
    }

    private let value: Value

    /// libdwfl could not start a session (`dwfl_begin` failed).
    public static var sessionUnavailable: Self { Self(value: .sessionUnavailable) }
    /// The process's memory map could not be read (`dwfl_linux_proc_report` failed, e.g. no such process).
    public static var processNotReadable: Self { Self(value: .processNotReadable) }
    /// The symbolizer of `leakgraph run` could not be reached or answered nothing usable
    /// (``RemoteSymbolizer``).
    public static var remoteFailed: Self { Self(value: .remoteFailed) }
}
