/// Something the heap walk could not read exactly.
///
/// References hidden in such places are not seen, so their targets keep an unexplained retain count and
/// count as externally held: a diagnostic can hide a leak, never invent one.
public struct WalkDiagnostic: Sendable, Hashable, Codable {
    /// The type whose layout was not (fully) read.
    public var typeName: String
    /// Why it was not read.
    public var reason: String
    /// How many live objects were affected.
    public var objectCount: Int

    /// Creates a diagnostic.
    public init(typeName: String, reason: String, objectCount: Int) {
        self.typeName = typeName
        self.reason = reason
        self.objectCount = objectCount
    }
}
