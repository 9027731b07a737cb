/// The names heap objects' types are shown with, from their type metadata alone — the names the walk
/// gives its nodes (`App.Widget`, `(closure context, 2 captures)`, `Task`), for objects that may
/// have died since (an allocation count names the types of every object it counted).
///
/// A type metadata pointer outlives every object of the type, so naming one never reads freed memory.
/// Names are built once per metadata (a layout plan) and kept. Not thread-safe: one instance per
/// thread, or behind a lock.
public final class HeapTypeNames {
    private let plans = ObjectPlans()

    /// An empty namer.
    public init() {}

    /// The name of the type whose metadata is at `metadata`; `(heap object)` for 0.
    public func name(ofMetadata metadata: UInt) -> String {
        guard let pointer = UnsafeRawPointer(bitPattern: metadata) else { return "(heap object)" }
        return plans.plan(for: pointer).typeName
    }
}
