/// One live heap object found by the heap walk.
public struct ObjectNode: Sendable, Hashable {
    /// The object's address in the process that was walked.
    public var address: UInt64
    /// The runtime's fully qualified type name (`MyApp.Node<Swift.Int>`), or a description for non-type objects.
    public var typeName: String
    /// What kind of heap object this is.
    public var kind: ObjectKind
    /// The allocation size in bytes.
    public var size: Int
    /// The strong retain count read from the object (`swift_retainCount`).
    public var retainCount: Int
    /// The identifier of the object's creation stack in the recorder, or `nil` when none was recorded.
    public var stackID: Int?

    /// Creates a node.
    public init(address: UInt64, typeName: String, kind: ObjectKind, size: Int, retainCount: Int, stackID: Int? = nil) {
        self.address = address
        self.typeName = typeName
        self.kind = kind
        self.size = size
        self.retainCount = retainCount
        self.stackID = stackID
    }
}
