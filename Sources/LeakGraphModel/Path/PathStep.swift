/// One step on the way from an object's start to a reference stored in it.
///
/// The heap walk emits steps; everything later (labels, suspects, fingerprints, leak traces, graphs) reads
/// them. How a step is *written* is decided in one place, ``ReferencePath``'s text derivation
/// (ReferencePath+Text.swift): to support a new kind of reference, add a case here and its text there.
public enum PathStep: Sendable, Hashable {
    /// A stored property of a class or struct (`delegate`). `lazy var` storage is named as written.
    case property(String)
    /// An element of a tuple: its label, or its position (`0`).
    case tupleElement(String)
    /// The payload of an enum case other than `Optional.some` (written ` (.connected)`).
    case enumCase(String)
    /// The payload of an `Optional` (written as nothing: `next`, not `next (.some)`).
    case optionalPayload
    /// The heap box holding the payload of an `indirect` case (written ` (indirect)`).
    case indirectPayload
    /// The value of an opaque existential (`any P`, `Any`) stored inline in its buffer, with the value's
    /// dynamic type (written ` (App.Box)`).
    case existentialValue(type: String)
    /// The heap box of an opaque existential's value too large for its buffer (written
    /// ` (any P as App.Big, boxed)`).
    case existentialBox(existential: String, type: String)
    /// An element of array storage, by position (written `[2]`).
    case element(Int)
    /// A key of dictionary storage (written `key "name"`, or `key` when the key cannot be shown).
    case dictionaryKey(DictionaryKey?)
    /// The value stored under a key of dictionary storage (written `["name"]`, or `[value]`).
    case dictionaryValue(DictionaryKey?)
    /// A member of set storage (written `member`).
    case setMember
    /// The context of a function value: the object the closure captured (written ` (closure)`).
    case closureContext
    /// A capture of a closure context, by position (written `capture[1]`).
    case capture(Int)
    /// A capture held through a heap box (a captured `var`; written ` (box)` after its capture).
    case captureBox
    /// The value inside a heap box (a captured `var`'s box, an `indirect` payload, a boxed existential
    /// value; written `value`).
    case boxValue
    /// The value inside an `any Error` box (written `value`).
    case errorValue
    /// Inside the internal storage of a standard-library value (`Array`, `Dictionary`, `Set`, `String`
    /// buffers, reached through their private properties and bridge objects; written as nothing).
    case storage
    /// The task a `Task<Success, Failure>` value refers to (written ` (Task)`: `refreshTask (Task)`).
    case taskHandle
    /// The closure context a task that has not completed keeps for the function it runs (written
    /// `closure`).
    case taskClosure
    /// The retain a suspended task holds on itself, attributed to the only holder of the `AsyncStream`
    /// storage it awaits — the one object that could resume it (written ` (resumes Task)` after the
    /// holder's path to the storage: `continuation (resumes Task)`).
    case resumesTask
    /// The retain a suspended task holds on itself when nothing can resume it (a reference from the task
    /// to itself, written `suspended, nothing can resume it`).
    case suspendedForever
    /// A word the walk does not read as a reference (an `UnsafeRawPointer`, `Unmanaged`, `Int(bitPattern:)`
    /// field, C memory of a Foundation object, an async frame of a task), found by the holder scan to
    /// point at an object whose retains nothing else explains: the stored property holding it, when the
    /// word lies in one, else its offset in the object (written `context (raw pointer)`, `+40 (raw
    /// pointer)`). Only found with the orphan scan (docs/how-it-works.md, "Raw pointers").
    case rawPointer(field: String?, offset: Int)
    /// A word in untracked malloc'd memory that only the referencing object points to (directly, or
    /// through more such memory), found by the holder scan to point at an object whose retains nothing
    /// else explains; named by the referencing object's word that leads to that memory, as for
    /// ``rawPointer(field:offset:)`` (written `registration (malloc'd memory, raw pointer)`).
    case ownedMemoryPointer(field: String?, offset: Int)
    /// A task group's child, from its parent task: the retain the child holds on itself, attributed to the
    /// parent, whose cancellation would resume it (written `child task`).
    case childTask
    /// A word in the async frames of a task that has not completed — its initial async context and the
    /// slabs of its task allocator, which only the task points to — found by the holder scan to point at
    /// an object whose retains nothing else explains (written `async frames (raw pointer)`).
    case asyncFrames
    /// A label from a report written before references carried paths: shown as it is, never interpreted.
    case label(String)
}

/// A dictionary key as a reference label shows it, read from memory without copying the key.
public struct DictionaryKey: Sendable, Hashable, Codable {
    /// What kind of key it is.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A `String` key; ``DictionaryKey/text`` is a quoted Swift literal (`"name"`), cut with `…` when long.
        case string
        /// A fixed-width integer key; ``DictionaryKey/text`` is its decimal digits.
        case integer
    }

    /// What kind of key it is.
    public var kind: Kind
    /// The key as Swift source would write it.
    public var text: String

    /// Creates a key description.
    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }

    /// The JSON keys, for the `Codable` conformance and the report's writer.
    package enum CodingKeys: String, CodingKey {
        case kind, text
    }
}
