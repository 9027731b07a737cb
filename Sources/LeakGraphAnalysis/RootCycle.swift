/// A root cycle: a strongly connected group of leaked objects that nothing else leaked keeps alive, with
/// the leaked objects it holds.
///
/// Its members form a non-trivial strongly connected component of the leaked subgraph (more than one
/// object, or one object with a strong reference to itself) with no strong reference into it from
/// another leaked component. Breaking one reference inside the cycle frees the members and everything in
/// ``holds``.
public struct RootCycle: Sendable, Hashable {
    /// The cycle's id: its position in ``LeakAnalysis/rootCycles``.
    public var id: Int
    /// The node indices of the cycle's members, ascending.
    public var members: [Int]
    /// The node indices of the leaked objects this cycle keeps alive without being part of it, ascending.
    public var holds: [Int]
    /// The cycles among ``holds``: each a strongly connected component of held objects with more than
    /// one member or a strong self-reference (node indices ascending), ordered by their smallest member.
    /// Such a cycle is leaked because this root cycle holds it, not on its own.
    public var heldCycles: [[Int]]
    /// Whether this root group is no cycle but one orphan: an object whose retains nothing holds (the
    /// holder scan found no word anywhere that could point at it, ``ObjectGraph/orphans``), with what
    /// it holds. Its single member is in ``members``.
    public var isOrphan: Bool
    /// Whether the cycle was excused (``LeakAnalysis/excusing(rootCycles:libraryReference:)``: a known leak of a library): the
    /// cycles among the objects it held were made root cycles of their own, so it excuses only itself and
    /// what no other cycle holds.
    public var isExcused: Bool
    /// For a cycle found among the objects an excused cycle held: the id of that excused cycle, the only
    /// leaked objects with strong references into it (its members and what it holds); `nil` otherwise.
    public var heldBy: Int?

    /// Creates a root cycle.
    public init(
        id: Int, members: [Int], holds: [Int], heldCycles: [[Int]] = [], isOrphan: Bool = false,
        isExcused: Bool = false, heldBy: Int? = nil
    ) {
        self.id = id
        self.members = members
        self.holds = holds
        self.heldCycles = heldCycles
        self.isOrphan = isOrphan
        self.isExcused = isExcused
        self.heldBy = heldBy
    }

    /// The number of leaked objects the cycle accounts for (members and held objects).
    public var objectCount: Int { members.count + holds.count }
}
