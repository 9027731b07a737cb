/// What kind of Swift heap object a node is.
public enum ObjectKind: String, Sendable, Codable, CaseIterable {
    /// An instance of a class (native Swift or an `NSObject` subclass).
    case `class`
    /// The context object of a closure that captures more than one value (metadata kind 0x400).
    case closureContext
    /// A heap box: a captured `var`, an `indirect` enum payload or an existential value too large for its buffer.
    case box
    /// The tail-allocated storage of an `Array` or `ContiguousArray`.
    case arrayStorage
    /// The storage of a `Dictionary`.
    case dictionaryStorage
    /// The storage of a `Set`.
    case setStorage
    /// A concurrency task (`Task { }`, `Task.detached`): recorded when it is created, not allocated
    /// through `swift_allocObject`.
    case task
    /// Any other heap object (string storage, tasks, …).
    case other
}
