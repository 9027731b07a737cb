import LeakGraphModel

/// A stable identifier of a root cycle's shape: the same leak gets the same fingerprint across runs and
/// builds, and a different leak almost surely a different one.
///
/// The fingerprint is computed from the cycle's internal strong references only, each written as the
/// line `SourceType <tab> path <tab> TargetType` with the runtime's full type names:
///
/// 1. **Paths are generic**: each reference's path is written as ``LeakGraphModel/ReferencePath/genericText``,
///    where every numeric subscript is `*` (`[3]` → `[*]`, `capture[0] (box)` → `capture[*] (box)`, an
///    integer dictionary key `[7]` → `[*]`), because array positions and hash-table order change from
///    run to run (Swift seeds its hashing per process). The text is otherwise the label people read, so
///    fingerprints did not change when labels became typed paths.
/// 2. **Repeated lines collapse**: the lines form a set, so the ring's length and the number of
///    identical references do not matter. A ring of 10 `Link`s and one of 12 share a fingerprint, as do a
///    parent with 3 children and one with 5 (LeakCanary's rule: same leak shape, same fingerprint), and so
///    do a `Link` referencing itself through `next` and a ring of `Link`s.
/// 3. **Order does not matter**: the distinct lines are sorted by their UTF-8 bytes and joined with
///    newlines after the header line ``header``.
/// 4. **Hash**: 64-bit FNV-1a of those UTF-8 bytes, written as 16 lowercase hexadecimal digits.
///
/// Addresses, node indices, leak ids, retain counts, sizes, held objects and creation stacks play no part.
/// A renamed type, module or property (or a new member type) changes the fingerprint. Closure contexts,
/// boxes and collection storage have generic type names (`(closure context, 2 captures)`,
/// `Swift._ContiguousArrayStorage<App.Child>`); the references into and out of them still tell shapes
/// apart. Two independent cycles of one shape in a report share a fingerprint: it names the shape, not
/// the instance.
public enum CycleFingerprint {
    /// The first line of the hashed text; it names the scheme so that a future scheme hashes differently.
    public static let header = "leakgraph-cycle-fingerprint-1"

    /// One internal strong reference of a cycle, by type names and path.
    public struct Edge: Sendable, Hashable {
        /// The referencing object's full type name.
        public var sourceType: String
        /// Where the reference is stored (its generic text is hashed).
        public var path: ReferencePath
        /// The referenced object's full type name.
        public var targetType: String

        /// Creates an edge.
        public init(sourceType: String, path: ReferencePath, targetType: String) {
            self.sourceType = sourceType
            self.path = path
            self.targetType = targetType
        }
    }

    /// The fingerprint of a cycle with these internal strong references, as 16 lowercase hex digits.
    ///
    /// - Complexity: O(*d* log *d*) for *d* distinct normalized edges, plus one pass over `edges`.
    public static func fingerprint(of edges: some Sequence<Edge>) -> String {
        hex(fnv1a64(canonicalText(of: edges).utf8))
    }

    /// The fingerprint of an orphan's root group (``RootCycle/isOrphan``): ``header``, then the line
    /// `orphan`, a tab and the orphan's type name, hashed as ``fingerprint(of:)`` hashes a cycle's lines.
    /// It depends on the type alone, so it is stable across runs and differs from every cycle's.
    public static func orphanFingerprint(typeName: String) -> String {
        hex(fnv1a64((header + "\n" + "orphan\t" + typeName + "\n").utf8))
    }

    /// The text that is hashed: ``header``, then the distinct edge lines in UTF-8 byte order, each line
    /// ending with a newline.
    public static func canonicalText(of edges: some Sequence<Edge>) -> String {
        var lines: Set<String> = []
        var generic: [ReferencePath: String] = [:]
        for edge in edges {
            let text: String
            if let known = generic[edge.path] {
                text = known
            } else {
                text = edge.path.genericText
                generic[edge.path] = text
            }
            lines.insert(edge.sourceType + "\t" + text + "\t" + edge.targetType)
        }
        let sorted = lines.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return ([header] + sorted).map { $0 + "\n" }.joined()
    }

    /// The 64-bit FNV-1a hash of `bytes` (offset basis `0xcbf29ce484222325`, prime `0x100000001b3`).
    ///
    /// - Complexity: O(*n*).
    public static func fnv1a64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `value` as 16 lowercase hexadecimal digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: false)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
