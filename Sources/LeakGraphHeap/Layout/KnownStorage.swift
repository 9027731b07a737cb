import LeakGraphModel

// MARK: - How to add a known container
//
// Most references are found from type metadata alone: field records name each stored property's type.
// Some library types keep references where no field record says — tail-allocated elements after a
// class's stored properties (`_ContiguousArrayStorage`), buckets found through an occupancy bitmap
// (`_DictionaryStorage`) — or are one reference in disguise (`Unmanaged`, `Task`). Those are entries of
// the tables below, one entry per type, found by the module and name its nominal type descriptor spells.
//
// To add one:
// 1. Read the type's source (the library's own, at the version the toolchain ships) and write down the
//    layout it relies on, with the version, in docs/how-it-works.md ("2. The heap walk").
// 2. Add an entry: a `KnownContainer` to `KnownStorage.containers` for a class whose instances hold
//    more than their fields say (its `tail` returns a `TailPlan` that `ReferenceScanner` walks, or a
//    reason it cannot be read), a `KnownStruct` to `KnownStorage.structs` for a struct read as
//    something else than its fields, or a `KnownNoncopyable` to `KnownStorage.noncopyable` for a type
//    that is not `Copyable` (reflection hides such a field's type; `HiddenTypeName` finds it). A layout
//    fact the entry relies on that the type's metadata does not give is checked once per process
//    against this toolchain by a probe of a known value (`SynchronizationLayout`), and the entry reads
//    nothing when it does not hold.
// 3. Read only what the type itself says exactly: a count or an offset that is guessed is a false
//    edge, and a false edge can make a false leak report. When something cannot be known, return
//    `.unreadable(reason)`: its targets then count as held, and the report names the type.
// 4. Test it: a unit test on live values in Tests/LeakGraphHeapTests, and a fixture with a leak and
//    its trap, in debug and release (Tests/Fixtures, run from Tests/EndToEndTests).

/// A class of a library whose instances hold references that its field records do not describe.
struct KnownContainer: Sendable {
    /// The module that declares the class (`Swift`).
    let module: String
    /// The class's name as its descriptor spells it (`_ContiguousArrayStorage`).
    let name: String
    /// What kind of heap object an instance whose class is (or inherits from) this one is; `nil` keeps
    /// the kind of an ordinary class instance.
    let kind: ObjectKind?
    /// How the instance's tail is read, decided once per class level.
    let tail: @Sendable (KnownContainerLevel) -> KnownContainerTail
}

/// The class level a ``KnownContainer`` is asked about.
struct KnownContainerLevel {
    /// The metadata of the object's own class (the most derived one).
    let metadata: UnsafeRawPointer
    /// The metadata of the level that matched, the known class itself (a superclass of `metadata`'s
    /// class, or it).
    let level: UnsafeRawPointer
    /// The matched level's generic arguments, when it is generic.
    let genericArguments: UnsafeRawPointer?
    /// Value layouts, for element and key types.
    let values: ValueLayouts

    /// The metadata of generic argument `index`, or `nil`.
    func genericArgument(_ index: Int) -> UnsafeRawPointer? {
        genericArguments?.pointer(at: index * 8)
    }
}

/// What a ``KnownContainer`` makes of an instance's tail.
enum KnownContainerTail {
    /// Nothing beyond its fields.
    case none
    /// References in its tail, read by ``ReferenceScanner``.
    case tail(TailPlan)
    /// A part that cannot be read exactly; its targets count as held and the report says why.
    case unreadable(String)
}

/// A struct of a library read as something other than its stored fields.
struct KnownStruct: Sendable {
    /// The module that declares the struct; any of these.
    let modules: [String]
    /// The struct's name as its descriptor spells it.
    let name: String
    /// The value's slots, offsets from its start.
    let slots: @Sendable () -> [Slot]
}

/// A type that is not `Copyable` whose layout LeakGraph knows, read from its one generic argument.
struct KnownNoncopyable: Sendable {
    /// The module that declares the type.
    let module: String
    /// The type's name.
    let name: String
    /// The value's layout, given its generic argument's metadata (`nil` when the type has none, or the
    /// argument could not be resolved).
    let layout: @Sendable (_ argument: UnsafeRawPointer?, _ values: ValueLayouts) -> KnownNoncopyableLayout
}

/// What a ``KnownNoncopyable`` entry makes of one value.
enum KnownNoncopyableLayout {
    /// The value's slots, offsets from its start.
    case slots([Slot])
    /// It cannot be read exactly.
    case unreadable(String)
}

/// The tables of known containers and structs (see "How to add a known container" above).
enum KnownStorage {
    /// Classes whose instances hold references beyond their fields.
    static let containers: [KnownContainer] = [
        KnownContainer(module: "Swift", name: "_ContiguousArrayStorage", kind: .arrayStorage) { level in
            // Count at +16, elements from +32 aligned for the element (`_ContiguousArrayStorage<Element>`).
            guard let element = level.genericArgument(0) else { return .unreadable("array element type unknown") }
            let witnesses = ValueWitnesses(of: element)
            return .tail(
                .arrayElements(
                    element: level.values.slots(of: element), start: align(32, to: witnesses.alignment),
                    stride: max(1, witnesses.stride)))
        },
        KnownContainer(module: "Swift", name: "_DictionaryStorage", kind: .dictionaryStorage) { level in
            guard let key = level.genericArgument(0), let value = level.genericArgument(1) else {
                return .unreadable("dictionary types unknown")
            }
            let values = level.values
            return .tail(
                .dictionaryBuckets(
                    key: values.slots(of: key), keyStride: max(1, ValueWitnesses(of: key).stride),
                    value: values.slots(of: value), valueStride: max(1, ValueWitnesses(of: value).stride),
                    keyFormat: KeyFormat(typeName: values.typeName(key))))
        },
        KnownContainer(module: "Swift", name: "_SetStorage", kind: .setStorage) { level in
            guard let element = level.genericArgument(0) else { return .unreadable("set element type unknown") }
            return .tail(
                .setBuckets(
                    element: level.values.slots(of: element), stride: max(1, ValueWitnesses(of: element).stride)))
        },
        KnownContainer(module: "Swift", name: "AnyKeyPath", kind: nil) { level in
            // The component buffer is tail-allocated (32-bit elements) after the instance, whose size the
            // class metadata gives (`InstanceSize`).
            .tail(.keyPathBuffer(headerOffset: align(ClassMetadata(level.metadata).instanceSize, to: 4)))
        },
        KnownContainer(module: "Swift", name: "ManagedBuffer", kind: nil) { level in
            // The header is a stored property (read as a field); the elements are tail-allocated, and how
            // many are initialized only the program knows — unless the header says so exactly
            // (``ManagedBufferCounts``).
            guard let element = level.genericArgument(1), !level.values.slots(of: element).isEmpty else { return .none }
            return ManagedBufferCounts.tail(level: level, element: element)
        },
    ]

    /// Structs read as something other than their fields.
    static let structs: [KnownStruct] = [
        // `Unmanaged<T>` holds an `unowned(unsafe)` reference: never a strong edge.
        KnownStruct(modules: ["Swift"], name: "Unmanaged") {
            [Slot(offset: 0, path: .empty, content: .reference(.unmanaged))]
        },
        // `Task<Success, Failure>` is one strong reference (`_task: Builtin.NativeObject`) to its task.
        KnownStruct(modules: ["Swift", "_Concurrency"], name: "Task") {
            [Slot(offset: 0, path: [.taskHandle], content: .reference(.strong))]
        },
    ]

    /// Types of the `Synchronization` module that are not `Copyable` (stdlib/public/Synchronization; layout
    /// facts checked by ``SynchronizationLayout``).
    static let noncopyable: [KnownNoncopyable] = [
        // `Mutex<Value>`: `handle: _MutexHandle` (on Linux an `Atomic<UInt32>` futex word), then
        // `value: _Cell<Value>`, laid out like `Value` at the next offset aligned for it.
        KnownNoncopyable(module: "Synchronization", name: "Mutex") { argument, values in
            guard let argument else { return .unreadable("the value type of Mutex could not be resolved") }
            let offset = align(SynchronizationLayout.mutexHandleSize, to: ValueWitnesses(of: argument).alignment)
            return .slots(values.slots(of: argument).map { $0.inStorage(shiftedBy: offset) })
        },
        // `_Cell<Value>` (`@_rawLayout(like: Value)`): the value itself.
        KnownNoncopyable(module: "Synchronization", name: "_Cell") { argument, values in
            guard let argument else { return .unreadable("the value type of _Cell could not be resolved") }
            return .slots(values.slots(of: argument).map { $0.inStorage(shiftedBy: 0) })
        },
        // `Atomic<Value>` (`@_rawLayout(like: Value.AtomicRepresentation)`): the representation is
        // `BitwiseCopyable`, so it holds no strong reference by type. For `Unmanaged<T>` and
        // `Unmanaged<T>?` it is the object's address (`Int(bitPattern:)`, nil is 0): an unmanaged
        // reference, never strong.
        KnownNoncopyable(module: "Synchronization", name: "Atomic") { argument, values in
            guard let argument, SynchronizationLayout.isUnmanagedOrOptionalUnmanaged(argument) else {
                return .slots([])
            }
            return .slots([Slot(offset: 0, path: [.storage], content: .reference(.unmanaged))])
        },
        // `AtomicLazyReference<Instance>`: `storage: Atomic<Unmanaged<Instance>?>` at offset 0, which owns
        // a retain of what it holds (`storeIfNil` stores `Unmanaged.passRetained`, `deinit` releases it):
        // a strong reference, nil is 0.
        KnownNoncopyable(module: "Synchronization", name: "AtomicLazyReference") { _, _ in
            .slots([Slot(offset: 0, path: [.storage], content: .reference(.strong))])
        },
        // `_MutexHandle`: the futex word.
        KnownNoncopyable(module: "Synchronization", name: "_MutexHandle") { _, _ in .slots([]) },
    ]

    /// For a collection whose element types cannot be resolved by name (private types): a collection of
    /// the same kind whose layout is the same — one strong reference to its storage object, whose own
    /// metadata names the real element types (checked by ``SynchronizationLayout``).
    static let collectionStandIns: [String: @Sendable () -> UnsafeRawPointer] = [
        "Swift.Array": { unsafeBitCast([Int].self as Any.Type, to: UnsafeRawPointer.self) },
        "Swift.ContiguousArray": { unsafeBitCast(ContiguousArray<Int>.self as Any.Type, to: UnsafeRawPointer.self) },
        "Swift.Dictionary": { unsafeBitCast([Int: Int].self as Any.Type, to: UnsafeRawPointer.self) },
        "Swift.Set": { unsafeBitCast(Set<Int>.self as Any.Type, to: UnsafeRawPointer.self) },
    ]

    /// The known type that is not `Copyable` named `name` in `module`, if any.
    static func noncopyableType(module: String, name: String) -> KnownNoncopyable? {
        noncopyable.first { $0.name == name && $0.module == module }
    }

    /// The known container named `name` in `module`, if any.
    static func container(module: String, name: String) -> KnownContainer? {
        containers.first { $0.name == name && $0.module == module }
    }

    /// The known struct named `name` in `module`, if any.
    static func knownStruct(module: String, name: String) -> KnownStruct? {
        structs.first { $0.name == name && $0.modules.contains(module) }
    }
}

extension Slot {
    /// This slot inside a library type's storage, `delta` bytes in: one `storage` step before its path,
    /// however deep the storage nests (`subscribers`, not `subscribers.value._buffer`).
    func inStorage(shiftedBy delta: Int) -> Slot {
        path.steps.first == .storage ? shifted(by: delta, under: .empty) : shifted(by: delta, under: [.storage])
    }
}
