/// One reference from one object to another, as found in the source object's memory.
public struct Reference: Sendable, Hashable {
    /// The index of the referencing object in ``ObjectGraph/nodes``.
    public var from: Int
    /// The index of the referenced object in ``ObjectGraph/nodes``.
    public var to: Int
    /// A label a person understands: `next`, `members[2]`, `onMessage (closure)`.
    public var label: String
    /// How the reference holds its target.
    public var ownership: Ownership

    /// Creates a reference.
    public init(from: Int, to: Int, label: String, ownership: Ownership) {
        self.from = from
        self.to = to
        self.label = label
        self.ownership = ownership
    }
}
