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
