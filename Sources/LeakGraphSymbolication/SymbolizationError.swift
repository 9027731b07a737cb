/// Why a ``Symbolizer`` could not be created.
public struct SymbolizationError: Error, Sendable, CustomStringConvertible {
    /// What failed, as a value that can grow new cases without breaking callers.
    public struct Code: Hashable, Sendable {
        private enum Value: Hashable, Sendable {
            case sessionUnavailable
            case processNotReadable
        }

        private let value: Value

        /// libdwfl could not start a session (`dwfl_begin` failed).
        public static var sessionUnavailable: Self { Self(value: .sessionUnavailable) }
        /// The process's memory map could not be read (`dwfl_linux_proc_report` failed, e.g. no such process).
        public static var processNotReadable: Self { Self(value: .processNotReadable) }
    }

    /// What failed.
    public let code: Code
    /// A sentence for people, including libdwfl's or the system's own message.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
