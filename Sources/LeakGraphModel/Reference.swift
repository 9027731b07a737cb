/// One reference from one object to another, as found in the source object's memory.
public struct Reference: Sendable, Hashable {
    /// The index of the referencing object in ``ObjectGraph/nodes``.
    public var from: Int
    /// The index of the referenced object in ``ObjectGraph/nodes``.
    public var to: Int
    /// Where the reference is stored inside the referencing object, as typed steps.
    public var path: ReferencePath
    /// How the reference holds its target.
    public var ownership: Ownership

    /// Creates a reference.
    public init(from: Int, to: Int, path: ReferencePath, ownership: Ownership) {
        self.from = from
        self.to = to
        self.path = path
        self.ownership = ownership
    }

    /// The label a person reads: `next`, `members[2]`, `onMessage (closure)` (``ReferencePath/text``).
    public var label: String { path.text }
}
