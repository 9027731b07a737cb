/// One frame of a retain or release's stack, as store-site attribution reads it: the symbolized
/// function (demangled), file and line, and whether it is the program's own code.
///
/// Attribution never symbolizes: the check that recorded the histories turns each stack into these
/// (inlined calls expanded, innermost first) and hands them over.
public struct HistoryFrame: Sendable, Hashable {
    /// The demangled function (`Fixture.Member.join(Fixture.Room) -> ()`).
    public var function: String
    /// The source file, when known.
    public var file: String?
    /// The source line, when known (`nil` for line 0: code the compiler made without a line).
    public var line: Int?
    /// Whether the frame is the program's own code (not the runtime, the standard library or a
    /// toolchain library, nor a toolchain function inlined into the program).
    public var isUserCode: Bool
    /// The return address the frame was symbolized from (inlined frames share their caller's), when known.
    public var address: UInt?

    /// Creates a frame.
    public init(function: String, file: String? = nil, line: Int? = nil, isUserCode: Bool, address: UInt? = nil) {
        self.function = function
        self.file = file
        self.line = line
        self.isUserCode = isUserCode
        self.address = address
    }

    /// Whether the frame is code the compiler made around a store rather than the line a person wrote:
    /// a property's `setter`, `modify`, `didset`/`willset` or `init` accessor, a thunk, an outlined
    /// copy, a partial-apply forwarder, or a merged function. The store site is its caller.
    public var isAccessorOrThunk: Bool {
        let name = function
        for marker in [
            ".setter : ", ".modify : ", ".didset : ", ".willset : ", ".init : ", ".unsafeMutableAddressor : ",
        ]
        where name.contains(marker) {
            return true
        }
        for prefix in [
            "reabstraction thunk", "thunk for ", "outlined ", "partial apply forwarder", "merged ",
            "protocol witness for ", "dispatch thunk of ", "vtable thunk",
        ]
        where name.hasPrefix(prefix) {
            return true
        }
        return false
    }

    /// Whether the frame destroys an object or value (a `deinit`, an outlined destroy, a value witness):
    /// a release made there gives up a reference some object stored.
    public var isDestroying: Bool {
        let name = function
        return name.hasSuffix(".deinit") || name.contains("__deallocating_deinit") || name.contains(".deinit ")
            || name.hasPrefix("outlined destroy") || name.hasPrefix("outlined consume")
            || name.contains("destroy value witness")
            || name.contains("destroyWithCopy")
    }

    /// Whether the function can hand an owned reference to an object of type `typeName` back to its
    /// caller: an initializer, a getter or read accessor, or a function whose result type names that type
    /// (its short name), `Any`, `AnyObject`, an existential or a generic parameter. Then a retain made in
    /// it may be its result's, and the store site is further out.
    public func mayReturn(_ typeName: String) -> Bool {
        let name = function
        for marker in [".getter : ", ".read : ", ".unsafeAddressor : ", ".modify : ", "__allocating_init"]
        where name.contains(marker) {
            // Accessors that yield, and allocating initializers (identical ones are folded: any type's name).
            return true
        }
        guard var result = Self.resultType(of: name) else { return false }
        if let closureEnd = result.firstRange(of: " in ") {
            result = result[..<closureEnd.lowerBound]
        }
        if result == "()" || result == "Swift.Void" || result.isEmpty { return false }
        let short = Self.shortName(typeName)
        let words = result.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
        if !short.isEmpty, words.contains(short) { return true }
        for word in ["any ", "some ", "τ_"] where result.contains(word) {
            return true
        }
        for word in ["Any", "AnyObject"] where words.contains(Substring(word)) {
            return true
        }
        // A generic parameter written as one capital letter (`A`, `T`).
        return words.contains { $0.count == 1 && $0.first!.isUppercase }
    }

    /// The text after the function's top-level ` -> `, or `nil` when it has none.
    static func resultType(of function: String) -> Substring? {
        var depth = 0
        var index = function.startIndex
        var result: Substring?
        while index < function.endIndex {
            let character = function[index]
            switch character {
            case "(", "[", "<": depth += 1
            case ">" where index > function.startIndex && function[function.index(before: index)] == "-": break
            case ")", "]", ">": depth -= 1
            case "-" where depth == 0:
                let next = function.index(after: index)
                if next < function.endIndex, function[next] == ">" {
                    result = function[function.index(after: next)...].drop(while: { $0 == " " })
                    index = next
                }
            default: break
            }
            index = function.index(after: index)
        }
        return result
    }

    /// `Room` for `Fixture.Room`, `Box` for `Fixture.Box<Swift.Int>`.
    static func shortName(_ typeName: String) -> Substring {
        let base = typeName.prefix { $0 != "<" }
        return base.split(separator: ".").last ?? base
    }
}
