import CLeakGraphMetadata
import LeakGraphModel

/// The captured arguments of a key path's subscript components (`\Store.[owner]` holds `owner`).
///
/// A key path object keeps its components in a tail-allocated buffer (stdlib/public/core/KeyPath.swift,
/// `KeyPathBuffer`, `RawKeyPathComponent`; the bit layout in SwiftShims/KeyPath.h of this toolchain):
/// a 32-bit header (size, trivial flag) padded to a word, then components, each a 32-bit header whose
/// bits 24–30 name its kind and whose body follows; between two components, a word holding the next
/// type's metadata. A computed component (a subscript or computed property) is its header, 4 bytes of
/// padding, an identifier, a getter, a setter when settable, and — when it has arguments — the size of
/// its argument area, a pointer to the argument witnesses (destroy, copy, equals, hash), then the area.
///
/// No metadata describes the area: its layout is the compiler's, the index values one after another as
/// a tuple. Their types are named only by the equality witness's symbol, `$s<index types>TH` (in the
/// module's `.symtab`): each is resolved by the runtime and laid out as tuple elements, and the layout is
/// believed only when its size is the area's exactly. Anything else — no symbol (a stripped module), a
/// private index type, a generic key path (whose area also holds generic arguments), an external
/// component with arguments — is named as not read.
enum KeyPathArguments {
    // SwiftShims/KeyPath.h (Swift 6.3.1).
    static let bufferSizeMask: UInt32 = 0x00FF_FFFF
    static let bufferTrivialFlag: UInt32 = 0x8000_0000
    static let discriminatorMask: UInt32 = 0x7F00_0000
    static let discriminatorShift: UInt32 = 24
    static let structTag: UInt32 = 1, computedTag: UInt32 = 2, classTag: UInt32 = 3, optionalTag: UInt32 = 4
    static let outOfLineOffsetPayload: UInt32 = 0x007F_FFFD
    static let storedOffsetPayloadMask: UInt32 = 0x007F_FFFF
    static let computedSettableFlag: UInt32 = 0x0040_0000
    static let computedHasArgumentsFlag: UInt32 = 0x0008_0000
    static let computedInstantiatedFromExternalWithArgumentsFlag: UInt32 = 0x0000_0010

    /// Why the buffer layout above does not hold on this toolchain, or `nil` when it does: checked once per
    /// process on key paths of known arguments (`\KeyPathProbe.[marker]`, `\KeyPathProbe.[marker, 7]`).
    static let layoutFailure: String? = {
        let marker = KeyPathProbe()
        let paths: [AnyKeyPath] = [\KeyPathProbe.[marker], \KeyPathProbe.[marker, 7]]
        return withExtendedLifetime((marker, paths)) { () -> String? in
            let address = UInt(bitPattern: Unmanaged.passUnretained(marker).toOpaque())
            for (index, path) in paths.enumerated() {
                let object = UnsafeRawPointer(Unmanaged.passUnretained(path).toOpaque())
                let headerOffset = align(ClassMetadata(object.pointer(at: 0)!).instanceSize, to: 4)
                guard case .success(let areas) = Self.areas(of: object, headerOffset: headerOffset, checked: false),
                    areas.count == 1,
                    areas[0].size == (index == 0 ? 8 : 16), object.word(at: areas[0].offset) == address,
                    index == 0 || object.word(at: areas[0].offset + 8) == 7
                else { return "a key path's argument area is not where LeakGraph reads it" }
            }
            return nil
        }
    }()

    /// One argument area: its offset from the object's start, its size, its witnesses.
    struct Area {
        let offset: Int
        let size: Int
        let witnesses: UnsafeRawPointer
    }

    /// The argument areas of the key path object at `object`, whose buffer header is at `headerOffset`;
    /// or why the buffer cannot be walked.
    static func areas(of object: UnsafeRawPointer, headerOffset: Int) -> Result<[Area], Unreadable> {
        areas(of: object, headerOffset: headerOffset, checked: true)
    }

    private static func areas(of object: UnsafeRawPointer, headerOffset: Int, checked: Bool) -> Result<
        [Area], Unreadable
    > {
        let header = object.uint32(at: headerOffset)
        guard header & bufferTrivialFlag == 0 else { return .success([]) }
        if checked, let failure = layoutFailure {
            return .failure(Unreadable("captured subscript arguments of a key path are not read: \(failure)"))
        }
        let start = headerOffset + 8  // the header is padded to a word
        let end = start + Int(header & bufferSizeMask)
        var offset = start
        var areas: [Area] = []
        while offset < end {
            let component = object.uint32(at: offset)
            let kind = (component & discriminatorMask) >> discriminatorShift
            let payload = component & 0x00FF_FFFF
            offset += 4
            switch kind {
            case structTag, classTag:
                if payload & storedOffsetPayloadMask == outOfLineOffsetPayload { offset += 4 }
            case optionalTag:
                break
            case computedTag:
                offset = align(offset, to: 8) + 16  // identifier, getter
                if payload & computedSettableFlag != 0 { offset += 8 }
                if payload & computedHasArgumentsFlag != 0 {
                    guard payload & computedInstantiatedFromExternalWithArgumentsFlag == 0 else {
                        return .failure(Unreadable("a key path component of another module with arguments is not read"))
                    }
                    let size = Int(bitPattern: object.word(at: offset))
                    guard size >= 0, offset + 16 + size <= end, let witnesses = object.pointer(at: offset + 8) else {
                        return .failure(Unreadable("a key path's argument area does not fit its buffer"))
                    }
                    areas.append(Area(offset: offset + 16, size: size, witnesses: witnesses))
                    offset += 16 + size
                }
            default:
                return .failure(Unreadable("a key path component of kind \(kind) is not read"))
            }
            guard offset <= end else { return .failure(Unreadable("a key path's components do not fit its buffer")) }
            if offset < end { offset = align(offset, to: 8) + 8 }  // the next component's type
        }
        return .success(areas)
    }

    /// Why something cannot be read.
    struct Unreadable: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The slots of an argument area whose witnesses are `witnesses` and whose size is `size`: the index
    /// types named by the equality witness's symbol, laid out as a tuple.
    static func slots(witnesses: UnsafeRawPointer, size: Int, values: ValueLayouts) -> (
        slots: [Slot], unreadable: String?
    ) {
        // ComputedArgumentWitnesses: destroy, copy, equals, hash.
        guard let equals = witnesses.pointer(at: 16) else { return ([], "a key path's argument witnesses are missing") }
        var buffer = [CChar](repeating: 0, count: 2048)
        let length = lg_module_symbol_name(equals, &buffer, buffer.count)
        let name = buffer.prefix(length).map { UInt8(bitPattern: $0) }
        let unread = "captured subscript arguments of a key path are not read"
        guard name.count > 4, name.starts(with: Array("$s".utf8)), name.suffix(2) == Array("TH".utf8) else {
            return ([], "\(unread) (its equality witness has no symbol naming the index types)")
        }
        let types = Array(name.dropFirst(2).dropLast(2))
        guard let nodes = MangledTypeTree.parseSequence(types) else {
            return ([], "\(unread) (index types \(String(decoding: types, as: UTF8.self)) are not read)")
        }
        var slots: [Slot] = []
        var offset = 0
        for (index, node) in nodes.enumerated() {
            if case .function = node.shape { return ([], "\(unread) (an index is a function)") }
            guard let spelling = node.resolvable else {
                return (
                    [],
                    "\(unread) (index type \(String(decoding: types[node.start..<node.end], as: UTF8.self)) repeats an earlier one)"
                )
            }
            let resolved = types.withUnsafeBytes { bytes in
                lg_type_by_mangled_name(
                    (bytes.baseAddress! + spelling.lowerBound).assumingMemoryBound(to: CChar.self), spelling.count, nil,
                    nil)
            }
            guard let type = resolved.map({ UnsafeRawPointer($0) }) else {
                return (
                    [],
                    "\(unread) (index type \(String(decoding: types[node.start..<node.end], as: UTF8.self)) could not be resolved)"
                )
            }
            let witnesses = ValueWitnesses(of: type)
            guard witnesses.alignment <= 8 else { return ([], "\(unread) (an index is over-aligned)") }
            offset = align(offset, to: witnesses.alignment)
            let path: ReferencePath =
                nodes.count == 1
                ? [.tupleElement("argument")] : [.tupleElement("arguments"), .tupleElement(String(index))]
            slots += values.slots(of: type).map { $0.shifted(by: offset, under: path) }
            offset += witnesses.size
        }
        guard size >= offset, size <= align(offset, to: 8) else {
            return ([], "\(unread) (their types' size, \(offset) bytes, is not the area's, \(size))")
        }
        return (slots, nil)
    }
}

/// The root and index of the key paths ``KeyPathArguments/layoutFailure`` reads.
final class KeyPathProbe: Hashable {
    subscript(key: KeyPathProbe) -> Int { 0 }
    subscript(key: KeyPathProbe, number: Int) -> Int { number }
    static func == (lhs: KeyPathProbe, rhs: KeyPathProbe) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
