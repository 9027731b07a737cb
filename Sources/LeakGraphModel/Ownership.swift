/// How a reference holds its target.
///
/// Only ``strong`` references keep an object alive and count towards its retain count.
public enum Ownership: String, Sendable, Codable, CaseIterable {
    /// A strong reference: it contributes one to the target's strong retain count.
    case strong
    /// A `weak` reference: it never keeps the target alive and reads `nil` once the target is deinitialized.
    case weak
    /// An `unowned` (safe) reference: it keeps the target's memory, not the object, alive.
    case unowned
    /// An `unowned(unsafe)` reference or an `Unmanaged` value: no reference counting at all.
    case unmanaged
}
