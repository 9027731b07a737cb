/// A type name as a person writes it (`leakgraph run --why`, `LeakChecker.retainers(ofType:)`): any
/// spelling the report prints, or a short name.
///
/// `Signal<Swift.Int, Swift.Never>.Observer` matches the runtime's
/// `ReactiveSwift.Signal<Swift.Int, Swift.Never>.Observer` written
/// - in full, or without its leading module, as the report shows it;
/// - with or without the modules of the names inside (`Signal<Int, Never>.Observer`);
/// - with any spacing (`Signal<Int,Never>.Observer`).
///
/// A short name — one identifier, no `.` and no generic arguments, such as `Observer` or
/// `Dictionary` — matches every type whose last component has that name (`Signal<…>.Observer`,
/// `Property<…>.Observer`, `Swift.Dictionary<Swift.String, Swift.Int>`).
public struct TypeNameQuery: Sendable, Hashable {
    /// The name as given.
    public let text: String
    /// `text` without spaces.
    private let compact: String
    /// Whether `text` is one identifier (a short name).
    public let isShortName: Bool

    /// A query for `text` (leading and trailing spaces are ignored).
    public init(_ text: String) {
        self.text = text.trimmingSpaces
        compact = String(self.text.filter { !$0.isWhitespace })
        isShortName = !compact.isEmpty && compact.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }

    /// Whether the type with the runtime's (fully qualified) name `typeName` is one this query names.
    public func matches(_ typeName: String) -> Bool {
        let type = String(typeName.filter { !$0.isWhitespace })
        if isShortName {
            return Self.lastComponentName(of: type) == compact
        }
        if type == compact || ReportNaming.shortName(type) == compact { return true }
        let bare = Self.withoutModules(type)
        return bare == compact || bare == Self.withoutModules(compact)
    }

    /// `Signal<Int,Never>.Observer` from `ReactiveSwift.Signal<Swift.Int,Swift.Never>.Observer`: the name
    /// with the module of every qualified name in it left out (the first component of each name that
    /// has more than one; see ``ReportNaming/modules(inTypeName:)``).
    static func withoutModules(_ name: String) -> String {
        var result = ""
        var identifier = ""
        var startsName = true
        var previous: Character?
        for character in name {
            if character.isLetter || character.isNumber || character == "_" {
                if identifier.isEmpty { startsName = previous != "." }
                identifier.append(character)
            } else {
                if character == ".", startsName, !identifier.isEmpty {
                    identifier = ""  // a module: dropped with its dot
                    previous = character
                    startsName = false
                    continue
                }
                result += identifier
                identifier = ""
                result.append(character)
            }
            previous = character
        }
        return result + identifier
    }

    /// The name of a type's last component without its generic arguments: `Observer` for
    /// `Signal<Swift.Int,Swift.Never>.Observer`, `Dictionary` for `Swift.Dictionary<Swift.String,Swift.Int>`.
    static func lastComponentName(of type: String) -> String {
        var depth = 0
        var start = type.startIndex
        var end = type.endIndex
        var index = type.startIndex
        while index < type.endIndex {
            switch type[index] {
            case "<", "(", "[":
                if depth == 0 { end = index }
                depth += 1
            case ">", ")", "]":
                depth = max(0, depth - 1)
            case "." where depth == 0:
                start = type.index(after: index)
                end = type.endIndex
            default:
                break
            }
            index = type.index(after: index)
        }
        return String(type[start..<max(start, end)])
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let characters = Array(self)
        guard let first = characters.firstIndex(where: { !$0.isWhitespace }),
            let last = characters.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(characters[first...last])
    }
}
