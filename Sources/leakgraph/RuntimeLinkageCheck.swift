import LeakGraphSymbolication

/// Decides whether `leakgraph run` can check an executable, from how it links the Swift runtime.
enum RuntimeLinkageCheck {
    /// Returns normally when the program uses the shared `libswiftCore.so`, the only runtime LeakGraph can
    /// hook from a preloaded library.
    /// - Throws: ``ToolError`` for a file that is not ELF, not Swift, or links the runtime statically.
    static func check(_ path: String, linkage: SwiftRuntimeLinkage) throws(ToolError) {
        switch linkage {
        case .dynamic:
            return
        case .staticallyLinked:
            throw ToolError(
                "\(path) links the Swift runtime statically; LeakGraph needs the shared libswiftCore.so, "
                    + "so build it without -static-stdlib / --static-swift-stdlib / -static-executable"
            )
        case .notSwift:
            throw ToolError("\(path) is not a Swift program (it does not use libswiftCore.so)")
        case .notELF(let reason):
            throw ToolError(reason.contains(path) ? reason : "cannot check \(path): \(reason)")
        }
    }
}
