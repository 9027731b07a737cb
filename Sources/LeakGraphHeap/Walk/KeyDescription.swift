import LeakGraphModel

/// Shows a dictionary key in a reference label without copying it (a copy would retain its storage).
enum KeyDescription {
    /// The longest key text shown before it is cut with `…`.
    static let maximumLength = 32

    /// `"name"` for strings, `42` for integers, `nil` when the key cannot be shown.
    static func describe(_ address: UnsafeRawPointer, format: KeyFormat) -> DictionaryKey? {
        switch format {
        case .bucket:
            return nil
        case .integer:
            return integerText(address, format: format).map { DictionaryKey(kind: .integer, text: $0) }
        case .string:
            guard let bytes = stringBytes(address) else { return nil }
            var text = String(decoding: bytes.prefix(maximumLength), as: UTF8.self)
            if bytes.count > maximumLength { text += "…" }
            text = text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\\\"")
            return DictionaryKey(kind: .string, text: "\"" + text + "\"")
        }
    }

    private static func integerText(_ address: UnsafeRawPointer, format: KeyFormat) -> String? {
        switch format {
        case .bucket, .string:
            return nil
        case .integer(let byteCount, let signed):
            switch (byteCount, signed) {
            case (8, true): return String(address.loadUnaligned(as: Int64.self))
            case (8, false): return String(address.loadUnaligned(as: UInt64.self))
            case (4, true): return String(address.loadUnaligned(as: Int32.self))
            case (4, false): return String(address.loadUnaligned(as: UInt32.self))
            case (2, true): return String(address.loadUnaligned(as: Int16.self))
            case (2, false): return String(address.loadUnaligned(as: UInt16.self))
            case (1, true): return String(address.loadUnaligned(as: Int8.self))
            default: return String(address.loadUnaligned(as: UInt8.self))
            }
        }
    }

    /// The UTF-8 bytes of a native Swift string on 64-bit platforms (stdlib StringObject.swift):
    /// word 0 holds count and flags, word 1 the object bits. Small strings (b61 of word 1) hold up to
    /// 15 bytes inline; tail-allocated ones (b60 of word 0) keep their bytes 32 bytes past the object
    /// address. Bridged and foreign strings are not shown.
    static func stringBytes(_ address: UnsafeRawPointer) -> [UInt8]? {
        let countAndFlags = address.loadUnaligned(as: UInt64.self)
        let object = address.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        if object & (1 << 61) != 0 {
            let count = Int((object >> 56) & 0xF)
            return withUnsafeBytes(of: (countAndFlags, object)) { Array($0.prefix(count)) }
        }
        guard countAndFlags & (1 << 60) != 0, object & (1 << 60) == 0 else { return nil }
        let count = Int(countAndFlags & 0x0000_FFFF_FFFF_FFFF)
        guard let start = UnsafeRawPointer(bitPattern: UInt(object & 0x0FFF_FFFF_FFFF_FFFF)) else { return nil }
        return Array(UnsafeRawBufferPointer(start: start + 32, count: min(count, maximumLength + 1)))
    }
}
