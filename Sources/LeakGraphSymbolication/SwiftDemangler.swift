#if canImport(Glibc)
    import Glibc
#endif

/// Demangles Swift symbol names with the runtime's exported `swift_demangle`.
///
/// `swift_demangle` is the runtime's C entry point (`char *swift_demangle(const char *mangledName,
/// size_t mangledNameLength, char *outputBuffer, size_t *outputBufferSize, uint32_t flags)`); it returns a
/// `malloc`ed string, or `NULL` when the name is not a Swift mangled name. It is looked up with `dlsym`
/// so that it is called with the C calling convention it is defined with.
enum SwiftDemangler {
    private typealias DemangleFunction =
        @convention(c) (
            UnsafePointer<CChar>?, Int, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<Int>?, UInt32
        ) -> UnsafeMutablePointer<CChar>?

    /// The runtime's `swift_demangle`, or `nil` if the process has none (it always has when Swift runs).
    private static let demangleFunction: DemangleFunction? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "swift_demangle") else {
            return nil
        }
        return unsafeBitCast(symbol, to: DemangleFunction.self)
    }()

    /// The demangled form of `symbol`, or `nil` if it is not a Swift mangled name.
    static func demangle(_ symbol: UnsafePointer<CChar>) -> String? {
        guard let demangle = demangleFunction,
            let buffer = demangle(symbol, strlen(symbol), nil, nil, 0)
        else {
            return nil
        }
        defer { free(buffer) }
        return String(cString: buffer)
    }
}
