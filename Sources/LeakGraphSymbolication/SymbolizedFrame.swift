/// One address of a backtrace, resolved to a function and, where debug information allows, a source line.
public struct SymbolizedFrame: Sendable, Hashable, Codable {
    /// The address that was looked up, as recorded (a return address is kept as is, not minus one).
    public var address: UInt
    /// The demangled function name; the raw symbol for C and C++; `"0x…"` (the address in hex) if unknown.
    public var function: String
    /// The symbol exactly as found in the symbol table (mangled for Swift), or `nil` if none covers the address.
    public var rawSymbol: String?
    /// The source file from the DWARF line table (usually an absolute path), or `nil` without debug information
    /// and for code the compiler generated (thunks, whose line table names `<compiler-generated>`).
    public var file: String?
    /// The source line, or `nil` when unknown or when the line table says 0 (compiler-generated code).
    public var line: Int?
    /// The path of the executable or shared object holding the address, as mapped in the process, or `nil`
    /// if the address is not in any mapped module.
    public var module: String?
    /// Whether this frame is a function the compiler inlined into its caller (the next frame, at the same
    /// address) rather than one with a stack frame of its own. Only
    /// ``Symbolizer/symbolizeExpandingInlines(_:as:)`` makes such frames; their ``rawSymbol`` is the inlined
    /// function's linkage name from DWARF, not a symbol-table entry.
    public var isInlined: Bool

    /// Creates a frame.
    public init(
        address: UInt, function: String, rawSymbol: String? = nil, file: String? = nil, line: Int? = nil,
        module: String? = nil, isInlined: Bool = false
    ) {
        self.address = address
        self.function = function
        self.rawSymbol = rawSymbol
        self.file = file
        self.line = line
        self.module = module
        self.isInlined = isInlined
    }

    /// A frame for an address nothing is known about: its function is the address in hex.
    public static func unknown(_ address: UInt) -> SymbolizedFrame {
        SymbolizedFrame(address: address, function: hexadecimal(address))
    }

    /// `0x` followed by the address in lowercase hexadecimal.
    static func hexadecimal(_ address: UInt) -> String {
        "0x" + String(address, radix: 16)
    }
}
