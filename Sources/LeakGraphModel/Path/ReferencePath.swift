/// Where a reference is stored inside the object that holds it: the steps from the object's start to
/// the stored pointer (`children` → element 2 → property `parent`).
///
/// A path is a value of typed steps, never a string to parse. Its text for people (``text``), its
/// generic form for fingerprints (``genericText``) and the facts suspects and renderers need
/// (``isClosure``, ``propertyName``, ``weakCandidate``) are all derived in ReferencePath+Text.swift.
public struct ReferencePath: Sendable, Hashable {
    /// The steps, outermost first.
    public var steps: [PathStep]

    /// Creates a path of `steps`.
    public init(_ steps: [PathStep]) {
        self.steps = steps
    }

    /// The empty path: the reference is the object's first word itself.
    public static let empty = ReferencePath([])

    /// A path of one stored property.
    public static func property(_ name: String) -> ReferencePath {
        ReferencePath([.property(name)])
    }

    /// This path followed by `other`.
    public func appending(_ other: ReferencePath) -> ReferencePath {
        if steps.isEmpty { return other }
        if other.steps.isEmpty { return self }
        return ReferencePath(steps + other.steps)
    }

    /// This path followed by `step`.
    public func appending(_ step: PathStep) -> ReferencePath {
        ReferencePath(steps + [step])
    }

    /// `step` followed by this path.
    public func prepending(_ step: PathStep) -> ReferencePath {
        ReferencePath([step] + steps)
    }
}

extension ReferencePath: ExpressibleByArrayLiteral {
    /// Creates a path from its steps, outermost first.
    public init(arrayLiteral steps: PathStep...) {
        self.init(steps)
    }
}
