import LeakGraphModel

/// What the suspect rules may know about the code beyond the graph, so that a fix is offered only
/// where it compiles: which types the checked code declares (a `weak var` can be written only in its
/// own class), and where each closure context was formed (`[weak self]` names the `self` of the
/// function that formed the closure).
///
/// The default knows nothing: every type counts as the checked code's own and no closure's site is
/// known. The report builder fills it from the leaked objects' creation stacks.
public struct SuspectContext: Sendable {
    /// Whether the type (full runtime name) is declared in the checked code: `false` for the standard
    /// library, Foundation, the test libraries and the package's dependencies; `nil` when unknown
    /// (counted as the code's own).
    public var isOwnType: @Sendable (_ typeName: String) -> Bool?
    /// The function that made the closure context at a node (its creation site's function,
    /// demangled), when known.
    public var formingFunction: @Sendable (_ node: Int) -> String?

    /// Creates a context.
    public init(
        isOwnType: @escaping @Sendable (String) -> Bool? = { _ in nil },
        formingFunction: @escaping @Sendable (Int) -> String? = { _ in nil }
    ) {
        self.isOwnType = isOwnType
        self.formingFunction = formingFunction
    }

    /// Whether `function` (demangled) is a method — an initializer, accessor or closure in one — of
    /// the type `typeName` (full runtime name, generic arguments ignored), so that `self` there is an
    /// object of that type: `Chat.MessageHandler.init(wiring: Chat.Wiring) -> Chat.MessageHandler` is
    /// one of `Chat.MessageHandler`; `Chat.wire(handler: Chat.MessageHandler) -> ()` is not.
    public static func isMethod(_ function: String, of typeName: String) -> Bool {
        let type = baseName(typeName)
        var proper = DemangledFunctionName.proper(function)
        for prefix in ["static ", "merged ", "specialized "] where proper.hasPrefix(prefix) {
            proper = proper.dropFirst(prefix.count)
        }
        let qualified = baseName(String(proper.prefix { $0 != "(" && $0 != " " }))
        guard qualified.hasPrefix(type + ".") else { return false }
        // `Type.member` or `Type.property.getter`, not `Type.Nested.member` (a nested type's name is
        // capitalized; members are not).
        let member = qualified.dropFirst(type.count + 1)
        return member.first.map { !$0.isUppercase } ?? false
    }

    /// A type or function name without its generic arguments: `App.Box<Swift.Int>.Item` → `App.Box.Item`.
    static func baseName(_ name: String) -> String {
        var result = ""
        var depth = 0
        for character in name {
            if character == "<" { depth += 1; continue }
            if character == ">" { depth = max(0, depth - 1); continue }
            if depth == 0 { result.append(character) }
        }
        return result
    }
}
