/// Something the heap walk could not read exactly.
///
/// References hidden in such places are not seen, so their targets keep an unexplained retain count and
/// count as externally held: a diagnostic can hide a leak, never invent one.
///
/// Two diagnostics are equal when they name the same type, reason and object count: ``site`` and
/// ``stackID`` name one example object's creation and take no part.
public struct WalkDiagnostic: Sendable, Hashable, Codable {
    /// The type whose layout was not (fully) read.
    public var typeName: String
    /// Why it was not read.
    public var reason: String
    /// How many live objects were affected.
    public var objectCount: Int
    /// Where one of the objects was created, as leak reports name it (`main.swift:12 in makeView()`;
    /// for a closure context, the function that made the closure), when its creation stack was recorded
    /// and symbolized; `nil` otherwise.
    public var site: String?
    /// The recorder's creation stack of one of the objects (what ``site`` is made from); not written to
    /// JSON.
    public var stackID: Int?

    /// Creates a diagnostic.
    public init(typeName: String, reason: String, objectCount: Int, site: String? = nil, stackID: Int? = nil) {
        self.typeName = typeName
        self.reason = reason
        self.objectCount = objectCount
        self.site = site
        self.stackID = stackID
    }

    /// The JSON keys (``stackID`` is not written), for the `Codable` conformance and the report's writer.
    package enum CodingKeys: String, CodingKey {
        case typeName, reason, objectCount, site
    }

    /// Compares type, reason and count (see the type's discussion).
    public static func == (lhs: WalkDiagnostic, rhs: WalkDiagnostic) -> Bool {
        lhs.typeName == rhs.typeName && lhs.reason == rhs.reason && lhs.objectCount == rhs.objectCount
    }

    /// Hashes type, reason and count.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeName)
        hasher.combine(reason)
        hasher.combine(objectCount)
    }
}
