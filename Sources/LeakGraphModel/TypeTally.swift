/// How many live objects of one type a heap walk found, and their bytes: one row of a live-object
/// histogram.
public struct TypeTally: Sendable, Codable, Hashable {
    /// The runtime's type name, as ``ObjectNode/typeName``.
    public var type: String
    /// Live objects of the type.
    public var count: Int
    /// Their allocation sizes, summed.
    public var bytes: Int

    /// Creates a row.
    public init(type: String, count: Int, bytes: Int) {
        self.type = type
        self.count = count
        self.bytes = bytes
    }

    /// The JSON keys, for the `Codable` conformance and the report's writer.
    package enum CodingKeys: String, CodingKey {
        case type, count, bytes
    }
}
