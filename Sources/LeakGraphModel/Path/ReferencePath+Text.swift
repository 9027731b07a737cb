/// The one place where a ``ReferencePath`` becomes text and where its steps are interpreted.
///
/// Steps are either *components*, joined with `.` (`meta.owner`, `[3].parent`, `capture[1]`), subscripts
/// written right after what they subscript (`children[2]`), *notes*,
/// appended in parentheses (`handler (closure)`, `state (.connected)`, `delegate (any P as App.Big,
/// boxed)`), or invisible (`Optional`'s payload, standard-library storage).
extension ReferencePath {
    /// How numeric subscripts (array positions, closure captures, integer dictionary keys) are written.
    public enum SubscriptStyle: Sendable, Hashable {
        /// As they are: `children[2]`, `capture[0]`.
        case exact
        /// Replaced by a placeholder: `children[*]` with `"*"`, `children[i]` with `"i"`.
        case placeholder(String)
    }

    /// The text shown to people: `delegate`, `meta.owner`, `[2]`, `onMessage (closure)`,
    /// `state (.connected).conn`, `["key"]`.
    public var text: String {
        text(subscripts: .exact)
    }

    /// The text with every numeric subscript replaced by `*` (`[2]` → `[*]`, `capture[0]` → `capture[*]`,
    /// `[7]` for an integer dictionary key → `[*]`): the form fingerprints are computed from, because
    /// positions and hash-table order change from run to run.
    public var genericText: String {
        text(subscripts: .placeholder("*"))
    }

    /// The path written with numeric subscripts in the given style.
    ///
    /// - Complexity: O(length of the result).
    public func text(subscripts style: SubscriptStyle) -> String {
        var result = ""
        /// A subscript follows what it subscripts directly: `children[2]`, `[3].parent`.
        func subscriptComponent(_ part: String) {
            result += part
        }
        func component(_ part: String) {
            if result.isEmpty {
                result = part
            } else if !part.isEmpty {
                result += "." + part
            }
        }
        func number(_ value: Int) -> String {
            switch style {
            case .exact: String(value)
            case .placeholder(let placeholder): placeholder
            }
        }
        for step in steps {
            switch step {
            case .property(let name), .tupleElement(let name):
                component(name)
            case .element(let index):
                subscriptComponent("[\(number(index))]")
            case .capture(let index):
                component("capture[\(number(index))]")
            case .dictionaryKey(let key):
                component(key.map { "key \(Self.keyText($0, style))" } ?? "key")
            case .dictionaryValue(let key):
                subscriptComponent("[\(key.map { Self.keyText($0, style) } ?? "value")]")
            case .setMember:
                component("member")
            case .boxValue, .errorValue:
                component("value")
            case .label(let text):
                component(text)
            case .enumCase(let name):
                result += " (.\(name))"
            case .indirectPayload:
                result += " (indirect)"
            case .existentialValue(let type):
                result += " (\(type))"
            case .existentialBox(let existential, let type):
                result += " (\(existential) as \(type), boxed)"
            case .closureContext:
                result += " (closure)"
            case .captureBox:
                result += " (box)"
            case .taskHandle:
                result += " (Task)"
            case .taskClosure:
                component("closure")
            case .resumesTask:
                result += " (resumes Task)"
            case .suspendedForever:
                component("suspended, nothing can resume it")
            case .rawPointer(let field, let offset):
                component(field ?? "+\(offset)")
                result += " (raw pointer)"
            case .ownedMemoryPointer(let field, let offset):
                component(field ?? "+\(offset)")
                result += " (malloc'd memory, raw pointer)"
            case .asyncFrames:
                component("async frames")
                result += " (raw pointer)"
            case .childTask:
                component("child task")
            case .optionalPayload, .storage:
                break
            }
        }
        return result
    }

    private static func keyText(_ key: DictionaryKey, _ style: SubscriptStyle) -> String {
        switch (key.kind, style) {
        case (.integer, .placeholder(let placeholder)): placeholder
        default: key.text
        }
    }

    /// Whether the reference is a closure's context: the path ends in a function value.
    public var isClosure: Bool {
        steps.last == .closureContext
    }

    /// Whether the reference is the retain a suspended task holds on itself, attributed to the one holder
    /// of the stream it waits on (``PathStep/resumesTask``).
    public var isTaskResumption: Bool {
        steps.last == .resumesTask
    }

    /// Whether the reference is a suspended task's retain on itself that nothing can release: the task
    /// waits on a stream that nothing can yield to or finish any more (``PathStep/suspendedForever``).
    public var isTaskSuspendedForever: Bool {
        steps.last == .suspendedForever
    }

    /// Whether the text starts with a subscript (`[2]`, `["key"]`), so that a renderer writes it right
    /// after a type name (`Array[2]`) instead of after a dot.
    public var startsWithSubscript: Bool {
        switch steps.first {
        case .element, .dictionaryValue: true
        default: false
        }
    }

    /// The name of the last component, which usually is the stored property holding the reference:
    /// `meta.owner` → `owner`, `handler (closure)` → `handler`, `[3].parent` → `parent`,
    /// `state (.connected).conn` → `conn`, `capture[1]` → `capture`; empty for a subscript (`[3]`).
    public var propertyName: String {
        for step in steps.reversed() {
            switch step {
            case .property(let name), .tupleElement(let name), .label(let name): return name
            case .capture: return "capture"
            case .setMember: return "member"
            case .boxValue, .errorValue: return "value"
            case .taskClosure: return "closure"
            case .dictionaryKey: return "key"
            case .element, .dictionaryValue: return ""
            case .enumCase, .optionalPayload, .indirectPayload, .existentialValue, .existentialBox, .closureContext,
                .captureBox, .storage, .taskHandle, .resumesTask:
                continue
            case .suspendedForever:
                return ""
            case .asyncFrames:
                return "async frames"
            case .childTask:
                return "child task"
            case .rawPointer(let field, _), .ownedMemoryPointer(let field, _):
                return field ?? ""
            }
        }
        return ""
    }

    /// Whether the reference is a word the walk did not read as a reference, which the holder scan
    /// found pointing at an object nothing else explains (``PathStep/rawPointer(field:offset:)``,
    /// ``PathStep/ownedMemoryPointer(field:offset:)``, ``PathStep/asyncFrames``).
    public var isRawPointer: Bool {
        switch steps.last {
        case .rawPointer, .ownedMemoryPointer, .asyncFrames: true
        default: false
        }
    }

    /// The stored property that could be declared `weak var` to break this reference, or `nil` when
    /// none could: the path ends in a stored property, optionally inside an `Optional`. A reference
    /// inside an enum case, a tuple, an existential box, a closure or a collection's storage cannot be
    /// made weak by changing one declaration.
    public var weakCandidate: String? {
        for step in steps.reversed() {
            switch step {
            case .optionalPayload:
                continue
            case .property(let name):
                return name
            default:
                return nil
            }
        }
        return nil
    }

    /// Whether the reference lies inside a standard-library collection's storage (an `Array`,
    /// `Dictionary` or `Set` property), so that its holder is the collection rather than a property.
    public var isInsideStorage: Bool {
        steps.contains(.storage)
    }
}
