import CLeakGraphMetadata

/// A mangled type name as stored in reflection metadata: text with embedded symbolic references
/// (a byte 0x01–0x17 followed by a 4-byte relative offset, or 0x18–0x1F followed by a pointer).
struct MangledName {
    let start: UnsafeRawPointer

    /// The name's length in bytes, skipping over symbolic reference payloads.
    var length: Int {
        var index = 0
        while true {
            let byte = start.load(fromByteOffset: index, as: UInt8.self)
            switch byte {
            case 0: return index
            case 0x01...0x17: index += 5
            case 0x18...0x1F: index += 1 + MemoryLayout<UInt>.size
            default: index += 1
            }
        }
    }

    /// The plain-text bytes at the end of the name (after the last symbolic reference).
    var textSuffix: [UInt8] {
        var index = 0
        var suffixStart = 0
        while true {
            let byte = start.load(fromByteOffset: index, as: UInt8.self)
            switch byte {
            case 0:
                return (suffixStart..<index).map { start.load(fromByteOffset: $0, as: UInt8.self) }
            case 0x01...0x17:
                index += 5
                suffixStart = index
            case 0x18...0x1F:
                index += 1 + MemoryLayout<UInt>.size
                suffixStart = index
            default:
                index += 1
            }
        }
    }

    /// A printable form for diagnostics: symbolic references shown as `<ref>`.
    var printable: String {
        var result = ""
        var index = 0
        while true {
            let byte = start.load(fromByteOffset: index, as: UInt8.self)
            switch byte {
            case 0: return result
            case 0x01...0x17:
                result += "<ref>"
                index += 5
            case 0x18...0x1F:
                result += "<ptr>"
                index += 1 + MemoryLayout<UInt>.size
            default:
                result.unicodeScalars.append(Unicode.Scalar(byte))
                index += 1
            }
        }
    }

    /// Whether the name is a bound generic class type, or an `Optional` of one: a symbolic reference to a
    /// class's context descriptor, then its generic arguments (`y … G`), then optionally `Sg`
    /// (docs/ABI/Mangling.rst: `bound-generic-type ::= type 'y' (type* '_')* type* 'G'`). Such a value is
    /// one native object pointer (`nil` is 0) whatever its arguments, so it can be read without them.
    var isGenericClassReference: Bool {
        var bytes = self.bytes
        guard bytes.count > 7, bytes[0] == 0x01 || bytes[0] == 0x02, bytes[5] == UInt8(ascii: "y") else { return false }
        if bytes.suffix(2) == [UInt8(ascii: "S"), UInt8(ascii: "g")] { bytes.removeLast(2) }
        // `…GSgSg` (a double optional, not one pointer) ends in `g` once one `Sg` is taken off: refused here.
        guard bytes.last == UInt8(ascii: "G") else { return false }
        let offset = Int(start.int32(at: 1))
        var target = start + 1 + offset
        if bytes[0] == 0x02 {
            guard let pointer = target.pointer(at: 0) else { return false }
            target = pointer
        }
        return ContextDescriptor(base: target).kind == .class
    }

    /// The reference storage a field's mangled type declares (`Xw` weak, `Xo` unowned, `Xu` unowned(unsafe)).
    var referenceStorage: ReferenceStorage {
        let suffix = textSuffix
        guard suffix.count >= 2, suffix[suffix.count - 2] == UInt8(ascii: "X") else { return .none }
        switch suffix[suffix.count - 1] {
        case UInt8(ascii: "w"): return .weak
        case UInt8(ascii: "o"): return .unowned
        case UInt8(ascii: "u"): return .unownedUnsafe
        case UInt8(ascii: "x"), UInt8(ascii: "b"), UInt8(ascii: "X"): return .box  // SIL box types: Xx, Xb, XX
        default: return .none
        }
    }

    /// A SIL function type (`… I e g … _`) that the runtime cannot build metadata for, as closure
    /// contexts capture them: `.thin` is one function pointer, `.thick` a function pointer and a
    /// strong context. `nil` when the name is not clearly such a type.
    var implFunctionRepresentation: ImplFunctionRepresentation? {
        let suffix = textSuffix
        guard suffix.last == UInt8(ascii: "_"),
            let marker = suffix.lastIndex(of: UInt8(ascii: "I"))
        else { return nil }
        var attributes = suffix[(marker + 1)..<(suffix.count - 1)].makeIterator()
        var next = attributes.next()
        if next == UInt8(ascii: "e") { next = attributes.next() }  // escaping
        // `@isolated(any)` (a Task's operation): still a function pointer and a context, 16 bytes — the
        // isolation is found through the context, not stored beside it (measured on 6.3.1).
        if next == UInt8(ascii: "A") { next = attributes.next() }
        // Only letters may follow: conventions, `h` sendable, `H` async.
        guard suffix[(marker + 1)..<(suffix.count - 1)].allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        switch next {
        case UInt8(ascii: "t"): return .thin
        case UInt8(ascii: "g"), UInt8(ascii: "x"), UInt8(ascii: "y"): return .thick
        default: return nil
        }
    }

    enum ImplFunctionRepresentation {
        case thin, thick
    }

    enum ReferenceStorage {
        case none, weak, unowned, unownedUnsafe, box
    }

    /// Resolves the name to type metadata, dropping a trailing reference-storage marker first.
    func resolve(context: UnsafeRawPointer?, genericArguments: UnsafeRawPointer?) -> UnsafeRawPointer? {
        var length = self.length
        switch referenceStorage {
        case .weak, .unowned, .unownedUnsafe: length -= 2
        case .box: return nil
        case .none: break
        }
        guard length > 0 else { return nil }
        let result = lg_type_by_mangled_name(
            start.assumingMemoryBound(to: CChar.self), length, context,
            genericArguments?.assumingMemoryBound(to: UnsafeRawPointer?.self))
        return result.map { UnsafeRawPointer($0) }
    }
}
