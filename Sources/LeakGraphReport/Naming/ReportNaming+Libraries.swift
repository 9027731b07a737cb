import LeakGraphModel

/// Which code a type or a function belongs to: the checked program's, or one of the libraries every
/// Swift program on Linux runs with — the Swift runtime and standard library, Foundation, Dispatch and
/// the test libraries — whose internals the reader cannot change.
///
/// Decided from module names alone (the module before the first `.` of each qualified name), never
/// from a list of particular types or messages, so that what a newer walk reports is classified too.
extension ReportNaming {
    /// The libraries, by module name, and the name each is shown with.
    public static let libraryModules: [String: String] = [
        "Swift": "the Swift runtime", "_Concurrency": "the Swift runtime", "_StringProcessing": "the Swift runtime",
        "Synchronization": "the Swift runtime", "Observation": "the Swift runtime", "Distributed": "the Swift runtime",
        "RegexBuilder": "the Swift runtime", "Cxx": "the Swift runtime",
        "Foundation": "Foundation", "FoundationEssentials": "Foundation",
        "FoundationInternationalization": "Foundation",
        "FoundationNetworking": "Foundation", "FoundationXML": "Foundation", "CoreFoundation": "Foundation",
        "_FoundationCShims": "Foundation",
        "Dispatch": "Dispatch",
        "XCTest": "XCTest",
        "Testing": "Swift Testing", "_Testing_Foundation": "Swift Testing", "_TestingInterop": "Swift Testing",
    ]

    /// The modules a type name mentions, in order (`Swift._ContiguousArrayStorage<App.Node>` → `Swift`,
    /// `App`): every identifier that starts a qualified name.
    public static func modules(inTypeName name: String) -> [String] {
        var result: [String] = []
        var identifier = ""
        var startsName = true
        var previous: Character?
        for character in name {
            if character.isLetter || character.isNumber || character == "_" {
                if identifier.isEmpty { startsName = previous != "." }
                identifier.append(character)
            } else {
                if character == ".", startsName, !identifier.isEmpty { result.append(identifier) }
                identifier = ""
            }
            previous = character
        }
        return result
    }

    /// The module of a demangled function name: the one the function itself is declared in, after
    /// the closures and thunks around it (`closure #1 () -> () in Foundation.Timer.init(…)` →
    /// `Foundation`); `nil` for a C function or an address.
    public static func module(ofFunction function: String) -> String? {
        var proper = DemangledFunctionName.proper(function)
        for prefix in functionPrefixes where proper.hasPrefix(prefix) {
            proper = proper.dropFirst(prefix.count)
        }
        return modules(inTypeName: String(proper.prefix { $0 != "(" && $0 != "<" && $0 != " " } + "(")).first
    }

    /// Words a demangled name can start with before the function's own qualified name.
    static let functionPrefixes = [
        "static ", "specialized ", "merged ", "partial apply forwarder for ", "thunk for ", "@objc ", "@nonobjc ",
        "dispatch thunk of ", "protocol witness for ", "reabstraction thunk helper from ", "implicit closure ",
    ]
}
