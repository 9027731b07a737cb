/// A JSON document under construction: UTF-8 bytes appended to one growing buffer, with the structure
/// (commas, indentation) kept by two counters instead of a stack of containers.
///
/// The layout follows Foundation's `JSONEncoder`: compact output has no whitespace at all; pretty output
/// puts every member and element on its own line, indented two spaces per level, with `"key" : value`,
/// and an empty container as its brackets on two lines with a blank line between.
///
/// Callers write a member with ``key(_:)`` and an array element with ``element()``, then exactly one
/// value. Keys are `CodingKey` values the caller passes in sorted order; they are written unescaped.
struct JSONText {
    /// The document so far.
    private(set) var bytes: [UInt8]
    /// Whether to indent (Foundation's `.prettyPrinted` layout).
    let prettyPrinted: Bool
    /// The number of containers open.
    private var depth = 0
    /// Whether the next member or element follows another in the same container.
    private var needsComma = false

    /// Starts an empty document.
    /// - Parameters:
    ///   - prettyPrinted: Indent the output.
    ///   - capacity: Bytes to reserve: an estimate of the final size.
    init(prettyPrinted: Bool, capacity: Int) {
        self.prettyPrinted = prettyPrinted
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    /// Writes `{`.
    mutating func openObject() {
        open(UInt8(ascii: "{"))
    }

    /// Writes `}`, closing the innermost container.
    mutating func closeObject() {
        close(UInt8(ascii: "}"))
    }

    /// Writes `[`.
    mutating func openArray() {
        open(UInt8(ascii: "["))
    }

    /// Writes `]`, closing the innermost container.
    mutating func closeArray() {
        close(UInt8(ascii: "]"))
    }

    /// Starts a member of the open object: separator, indentation, `"key"` and the colon.
    /// - Parameter name: The key, from the `CodingKeys` of the type whose member it is (spelled once, for
    ///   the `Codable` conformance and this writer): ASCII without characters JSON escapes.
    mutating func key(_ name: some CodingKey) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var text = name.stringValue
        text.withUTF8 { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        if prettyPrinted {
            bytes.append(UInt8(ascii: " "))
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// Writes `key` and an array of `items`, each written by `write` as one element.
    mutating func array<Items: Sequence>(
        _ key: some CodingKey, _ items: Items, _ write: (inout JSONText, Items.Element) -> Void
    ) {
        self.key(key)
        openArray()
        for item in items {
            element()
            write(&self, item)
        }
        closeArray()
    }

    /// Starts an element of the open array: separator and indentation.
    mutating func element() {
        separate()
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        if prettyPrinted {
            bytes.append(UInt8(ascii: "\n"))
        }
        depth += 1
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if prettyPrinted {
            bytes.append(UInt8(ascii: "\n"))
            indent()
        }
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma {
            bytes.append(UInt8(ascii: ","))
            if prettyPrinted {
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        if prettyPrinted {
            indent()
        }
        needsComma = true
    }

    private mutating func indent() {
        for _ in 0..<depth {
            bytes.append(UInt8(ascii: " "))
            bytes.append(UInt8(ascii: " "))
        }
    }

    // MARK: Values

    /// Writes `null`.
    mutating func null() {
        "null".utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
    }

    /// Writes `true` or `false`.
    mutating func boolean(_ value: Bool) {
        (value ? "true" : "false").utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
    }

    /// Writes an integer in decimal.
    mutating func integer(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        var magnitude = value.magnitude
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        // At most 20 digits (UInt64.max); written from the end of a small stack buffer.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            while magnitude > 0 {
                start -= 1
                let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: 10)
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: remainder)
                magnitude = quotient
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Writes an integer, or `null` when there is none.
    mutating func integer(_ value: Int?) {
        if let value {
            integer(value)
        } else {
            null()
        }
    }

    /// Writes a string, or `null` when there is none.
    mutating func string(_ value: String?) {
        if let value {
            string(value)
        } else {
            null()
        }
    }

    /// Writes a string literal: `"` and `\` escaped with a backslash, control characters below U+0020 as
    /// `\b` `\t` `\n` `\f` `\r` or `\u00xx`, everything else (`/`, non-ASCII) as its raw UTF-8 bytes.
    mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        let contiguous: Void? = value.utf8.withContiguousStorageIfAvailable { appendEscaped($0) }
        if contiguous == nil {
            Array(value.utf8).withUnsafeBufferPointer { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 bytes of a string's contents, copying runs that need no escape in one go.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else {
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            runStart = index + 1
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            default:
                // Below 0x20: `\u00` and two lowercase hex digits, the first 0 or 1.
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0") &+ (byte >> 4))
                let low = byte & 0xF
                bytes.append(low < 10 ? UInt8(ascii: "0") &+ low : UInt8(ascii: "a") &+ (low &- 10))
            }
        }
        if runStart < utf8.count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
    }
}
