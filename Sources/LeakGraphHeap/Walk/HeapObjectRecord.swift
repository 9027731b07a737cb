/// One recorded heap allocation, as the heap walk needs it.
///
/// The recorder guarantees that the memory of every record stays mapped for the whole walk (tracked
/// frees of tracked objects wait while the heap is frozen), so the walk may read any recorded object.
public struct HeapObjectRecord: Sendable, Hashable {
    /// The object's address.
    public var address: UInt
    /// Its metadata pointer, as passed to `swift_allocObject`.
    public var metadata: UInt
    /// The allocation size in bytes.
    public var size: Int
    /// The recorder's creation-stack id, or `nil`.
    public var stackID: Int?

    /// Creates a record.
    public init(address: UInt, metadata: UInt, size: Int, stackID: Int? = nil) {
        self.address = address
        self.metadata = metadata
        self.size = size
        self.stackID = stackID
    }
}
