/// The reference graph between the live heap objects of a process at one moment.
///
/// Nodes are indexed by position; every ``Reference`` names its endpoints by those indices.
/// The graph is a plain value: the heap walk builds it, analysis reads it, and tests build it by hand.
///
/// A graph may hold only part of a walk: a leak check builds the nodes and references of the leaked
/// objects alone (the references between them), and counts the other live objects in
/// ``liveObjectsLeftOut``.
public struct ObjectGraph: Sendable, Equatable {
    /// The live objects.
    public var nodes: [ObjectNode]
    /// All references found between live objects, of every ownership.
    public var references: [Reference]
    /// Places the walk could not read exactly.
    public var diagnostics: [WalkDiagnostic]
    /// How many objects the recorder was tracking when the graph was taken (live or not).
    public var trackedObjects: Int
    /// How many live objects the walk found that are not among ``nodes`` (0 for a whole walk).
    public var liveObjectsLeftOut: Int
    /// Nodes whose unexplained retains the holder scan proved held by nothing ("orphans", ascending):
    /// no word of the process outside the references read exactly could point at them. The analysis
    /// does not count their unexplained retains as roots. Empty unless a check ran the scan.
    public var orphans: [Int] = []

    /// Every live object the walk found, by type (most bytes first), when the check was asked for it;
    /// `nil` otherwise.
    public var liveTypes: [TypeTally]?

    /// The retain histories of the nodes whose type the history recorder followed, by node index
    /// (`leakgraph run --history`); empty otherwise.
    public var retainHistories: [Int: RetainHistory] = [:]

    /// How many live objects the walk found: ``nodes`` and those left out.
    public var liveObjects: Int { nodes.count + liveObjectsLeftOut }

    /// Creates a graph.
    public init(
        nodes: [ObjectNode] = [], references: [Reference] = [], diagnostics: [WalkDiagnostic] = [],
        trackedObjects: Int? = nil,
        liveObjectsLeftOut: Int = 0
    ) {
        self.nodes = nodes
        self.references = references
        self.diagnostics = diagnostics
        self.trackedObjects = trackedObjects ?? nodes.count
        self.liveObjectsLeftOut = liveObjectsLeftOut
    }

    /// Appends a node and returns its index.
    @discardableResult
    public mutating func addNode(_ node: ObjectNode) -> Int {
        nodes.append(node)
        return nodes.count - 1
    }

    /// Appends a reference stored at `path` in the source object.
    public mutating func addReference(from: Int, to: Int, path: ReferencePath, ownership: Ownership = .strong) {
        references.append(Reference(from: from, to: to, path: path, ownership: ownership))
    }
}
