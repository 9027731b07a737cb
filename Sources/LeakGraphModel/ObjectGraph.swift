/// The reference graph between the live heap objects of a process at one moment.
///
/// Nodes are indexed by position; every ``Reference`` names its endpoints by those indices.
/// The graph is a plain value: the heap walk builds it, analysis reads it, and tests build it by hand.
public struct ObjectGraph: Sendable, Equatable {
    /// The live objects.
    public var nodes: [ObjectNode]
    /// All references found between live objects, of every ownership.
    public var references: [Reference]
    /// Places the walk could not read exactly.
    public var diagnostics: [WalkDiagnostic]
    /// How many objects the recorder was tracking when the graph was taken (live or not).
    public var trackedObjects: Int

    /// Creates a graph.
    public init(nodes: [ObjectNode] = [], references: [Reference] = [], diagnostics: [WalkDiagnostic] = [], trackedObjects: Int? = nil) {
        self.nodes = nodes
        self.references = references
        self.diagnostics = diagnostics
        self.trackedObjects = trackedObjects ?? nodes.count
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
