import CLeakGraphMetadata
import Synchronization

/// The layout facts LeakGraph relies on to read `Synchronization`'s types that are not `Copyable`
/// (``KnownStorage/noncopyable``), checked once per process against the running toolchain by a probe
/// of known values: a class whose fields are such types, read back through the same path the walk
/// takes (its hidden field type names, ``HiddenTypeName``) and through raw memory.
///
/// Facts (Swift 6.3.1, Linux x86_64; stdlib/public/Synchronization):
/// - a field whose type is not `Copyable` has a hidden type name in the module's `.symtab`, whose
///   argument resolves under ``HiddenTypeNameStandIn``, also when it uses a substitution of an earlier
///   name and words of the wrapper's own (`[SynchronizationProbeKey: SynchronizationProbeMarker]`); a
///   private type through its descriptor's symbol; a collection of private types is recognised by its
///   demangled name;
/// - an `Array` and a `Dictionary` of any element types are one word, the address of their storage
///   object;
/// - `Mutex<Value>` holds its 4-byte futex word first, then the value at the next offset aligned for
///   `Value` (`Mutex<UInt8>` is 5 bytes, the value at +4; `Mutex<UInt64>` is 16, the value at +8);
/// - `AtomicLazyReference<T>` holds the object's address at +0 and one retain of it;
/// - `Atomic<Unmanaged<T>?>` holds the object's address at +0.
///
/// When any fact does not hold, ``failure`` says which, and no such type is read (each stays named in
/// the diagnostics).
enum SynchronizationLayout {
    /// The size of `_MutexHandle` on Linux: an `Atomic<UInt32>`.
    static let mutexHandleSize = 4

    /// Why the facts do not hold on this toolchain, or `nil` when they all do. Computed on first use.
    static let failure: String? = check()

    /// Whether `type` is `Unmanaged<T>` or `Optional<Unmanaged<T>>`, whose atomic representation is the
    /// object's address.
    static func isUnmanagedOrOptionalUnmanaged(_ type: UnsafeRawPointer) -> Bool {
        var type = type
        if MetadataKind(of: type) == .optional {
            guard let wrapped = type.pointer(at: 16) else { return false }
            type = wrapped
        }
        guard MetadataKind(of: type) == .struct, let descriptor = type.pointer(at: 8) else { return false }
        let context = ContextDescriptor(base: descriptor)
        return context.name == "Unmanaged" && context.moduleName == "Swift"
    }

    private static let wideValue: UInt64 = 0x5EED_CAFE_F00D_D00D
    private static let narrowValue: UInt8 = 0xA5

    private static func check() -> String? {
        guard MemoryLayout<Mutex<UInt8>>.size == mutexHandleSize + 1,
            MemoryLayout<Mutex<UInt64>>.size == 16, MemoryLayout<AtomicLazyReference<ProbeMarker>>.size == 8,
            MemoryLayout<Atomic<Unmanaged<ProbeMarker>?>>.size == 8, MemoryLayout<[ProbePrivateState]>.size == 8,
            MemoryLayout<[ProbePrivateState: ProbeMarker]>.size == 8
        else { return "Synchronization's type sizes differ from those LeakGraph reads" }
        let probe = SynchronizationProbe()
        let marker = SynchronizationProbeMarker()
        let element = ProbeMarker()
        var list = [ProbePrivateState(marker: element)]
        var table = [ProbePrivateState(marker: element): element]
        let listStorage = withUnsafeBytes(of: &list) { $0.load(as: UInt.self) }
        let tableStorage = withUnsafeBytes(of: &table) { $0.load(as: UInt.self) }
        guard Self.isStorage(listStorage, named: "_ContiguousArrayStorage"),
            Self.isStorage(tableStorage, named: "_DictionaryStorage")
        else { return "an Array or a Dictionary is not one reference to its storage object" }
        withExtendedLifetime((list, table)) {}
        _ = probe.lazy.storeIfNil(marker)
        probe.atomic.store(Unmanaged.passUnretained(marker), ordering: .sequentiallyConsistent)
        let retainsWithLazy = lg_retain_count(Unmanaged.passUnretained(marker).toOpaque())
        return withExtendedLifetime((probe, marker)) { () -> String? in
            let object = UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
            let metadata = object.pointer(at: 0)!
            guard let descriptorPointer = ClassMetadata(metadata).descriptorAddress,
                let fields = ContextDescriptor(base: descriptorPointer).fieldDescriptor,
                let vectorOffset = ContextDescriptor(base: descriptorPointer).classFieldOffsetVectorWordOffset
            else { return "the probe's class metadata could not be read" }
            let expected: [String: (name: String, argument: Any.Type?, collection: String?)] = [
                "wide": ("Mutex", UInt64.self, nil), "narrow": ("Mutex", UInt8.self, nil),
                "keyed": ("Mutex", [SynchronizationProbeKey: SynchronizationProbeMarker].self, nil),
                "privateState": ("Mutex", ProbePrivateState.self, nil),
                "privateList": ("Mutex", nil, "Swift.Array"),
                "lazy": ("AtomicLazyReference", SynchronizationProbeMarker.self, nil),
                "atomic": ("Atomic", Unmanaged<SynchronizationProbeMarker>?.self, nil),
            ]
            var offsets: [String: Int] = [:]
            for (index, record) in fields.records.enumerated() {
                guard let (name, argument, collection) = expected[record.name] else { continue }
                guard let mangled = record.mangledTypeName, let hidden = HiddenTypeName(fieldTypeName: mangled) else {
                    return
                        "the hidden type name of a field that is not Copyable could not be read (is the module stripped?)"
                }
                let resolved = hidden.resolveArgument(context: descriptorPointer, genericArguments: nil)
                guard hidden.module == "Synchronization", hidden.name == name,
                    resolved == argument.map({ unsafeBitCast($0, to: UnsafeRawPointer.self) }),
                    argument != nil || hidden.argumentCollection() == collection
                else {
                    return
                        "the hidden type name \(String(decoding: hidden.text, as: UTF8.self)) did not resolve as expected"
                }
                offsets[record.name] = Int(metadata.word(at: (vectorOffset + index) * 8))
            }
            guard offsets.count == expected.count, let wide = offsets["wide"], let narrow = offsets["narrow"],
                let lazy = offsets["lazy"], let atomic = offsets["atomic"]
            else { return "the probe's fields were not all found" }
            let markerAddress = UInt(bitPattern: Unmanaged.passUnretained(marker).toOpaque())
            guard object.load(fromByteOffset: wide + align(mutexHandleSize, to: 8), as: UInt64.self) == wideValue,
                object.load(fromByteOffset: narrow + mutexHandleSize, as: UInt8.self) == narrowValue
            else { return "a Mutex's value is not where LeakGraph reads it" }
            guard object.word(at: lazy) == markerAddress, object.word(at: atomic) == markerAddress else {
                return "an atomic reference is not where LeakGraph reads it"
            }
            // One retain of the marker is the lazy reference's own (the probe's `atomic` holds none).
            guard retainsWithLazy == 2 else { return "AtomicLazyReference does not hold one retain of its object" }
            return nil
        }
    }

    /// Whether the word `address` is the address of an object of the standard library class `name`.
    private static func isStorage(_ address: UInt, named name: String) -> Bool {
        guard let object = UnsafeRawPointer(bitPattern: address), let metadata = object.pointer(at: 0),
            MetadataKind(of: metadata) == .class, let descriptor = ClassMetadata(metadata).descriptorAddress
        else { return false }
        return ContextDescriptor(base: descriptor).name == name
    }
}

/// The probe ``SynchronizationLayout`` reads: one field per fact.
private final class SynchronizationProbe {
    let wide = Mutex<UInt64>(0x5EED_CAFE_F00D_D00D)
    let narrow = Mutex<UInt8>(0xA5)
    let keyed = Mutex<[SynchronizationProbeKey: SynchronizationProbeMarker]>([:])
    let privateState = Mutex<ProbePrivateState>(ProbePrivateState(marker: nil))
    let privateList = Mutex<[ProbePrivateState]>([])
    let lazy = AtomicLazyReference<SynchronizationProbeMarker>()
    let atomic = Atomic<Unmanaged<SynchronizationProbeMarker>?>(nil)
}

private final class ProbeMarker: @unchecked Sendable {}

private struct ProbePrivateState: Hashable, @unchecked Sendable {
    var marker: ProbeMarker?
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.marker === rhs.marker }
    func hash(into hasher: inout Hasher) { hasher.combine(marker.map(ObjectIdentifier.init)) }
}

/// Internal (not private) probe types: their names resolve by name, and their words repeat the
/// wrapper's (`Synchronization`), so the probe covers word substitutions of the wrapper's own words.
struct SynchronizationProbeKey: Hashable {}
final class SynchronizationProbeMarker: @unchecked Sendable {}
