/// The answer to "why are the objects of this type alive?" (`leakgraph run --why TYPE`,
/// `LeakChecker.retainers(ofType:)`): how many live objects matched, how many of them are leaked (no
/// root reaches them: the leak report explains those), and a retainer chain for each of the others,
/// up to a limit.
public struct RetainerQuery: Sendable, Codable, Hashable {
    /// The type asked about, as given (full name or without its module).
    public var type: String
    /// Live objects of that type when the check ran.
    public var matched: Int
    /// How many of them no root reaches: leaked, and in the leak report.
    public var leaked: Int
    /// A chain for each object a root reaches (at most the limit asked for).
    public var chains: [RetainerChain]
    /// The types (full names) of the live objects matched, each once, sorted (additional field, absent
    /// in reports written before it).
    public var matchedTypes: [String]?

    /// Creates a query's answer.
    public init(type: String, matched: Int, leaked: Int, chains: [RetainerChain], matchedTypes: [String]? = nil) {
        self.type = type
        self.matched = matched
        self.leaked = leaked
        self.chains = chains
        self.matchedTypes = matchedTypes
    }
}

extension LeakReport {
    /// The retainer chains this report holds for objects of `type` (any spelling ``TypeNameQuery``
    /// accepts), from ``why`` (`leakgraph run --why TYPE`): why each is alive. Empty when the report was
    /// not asked about that type or no object of it is held by a root.
    public func retainers(of type: String) -> [RetainerChain] {
        let query = TypeNameQuery(type)
        return (why ?? []).flatMap(\.chains).filter { query.matches($0.target.type) }
    }
}
