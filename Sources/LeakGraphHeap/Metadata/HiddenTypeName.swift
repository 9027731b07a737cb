import CLeakGraphMetadata

/// The mangled name of a stored property's type that the compiler hid from reflection because the type
/// is not `Copyable` (`Mutex<[Subscriber]>`), read from the module's symbol table
/// (`lg_hidden_type_name`), split as `Module.Name<Argument>` when it is a bound generic nominal type of
/// one argument.
///
/// The runtime refuses to look up a type that is not `Copyable` by name, so such a name is never given
/// to it whole. Its argument is: under a `Copyable` stand-in of the same shape
/// (``HiddenTypeNameStandIn``), so that the argument's substitutions (`AF`: the sixth name seen) keep
/// their meaning. The argument is rewritten first: word substitutions (an identifier spelled from words
/// of earlier identifiers, `0…`) are spelled out, because the stand-in's words differ; a substitution of
/// the wrapper's own names, or any part of the grammar not listed in ``rewrite(argument:prefixWords:)``,
/// makes the name unreadable — never guessed.
struct HiddenTypeName {
    /// The whole mangled type (`15Synchronization5MutexVySay7Fixture10SubscriberCGG`).
    let text: [UInt8]
    /// The module and name of the outer type, when it is a nominal struct `<module><name>V` or
    /// `<module><name>Vy<argument>G`.
    let module: String?
    let name: String?
    /// The argument's bytes, when the type has exactly one.
    let argument: ArraySlice<UInt8>?

    /// Where the field record's name lies: private types of the argument are found in that module.
    let location: UnsafeRawPointer?
    /// Whether the name starts with a generic signature (`<A where A: AnyObject>Mutex<A?>`, a field of a
    /// generic type): its requirements add substitutions and words the argument could refer to, so an
    /// argument that uses any is not read.
    let hasSignature: Bool

    /// Reads the hidden name of the field type whose field record's mangled name is `name`.
    init?(fieldTypeName name: MangledName) {
        // One symbolic reference to a direct accessor function (0x09), then the terminating zero.
        guard name.start.load(as: UInt8.self) == 0x09, name.length == 5 else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = lg_hidden_type_name(name.start, &buffer, buffer.count)
        guard length > 0 else { return nil }
        self.init(text: buffer.prefix(length).map { UInt8(bitPattern: $0) }, location: name.start)
    }

    init(text: [UInt8], location: UnsafeRawPointer? = nil) {
        self.text = text
        self.location = location
        // A generic signature ends with `l`; the type follows it.
        var starts = [0]
        if let first = text.first, !(UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) {
            starts = text.indices.dropFirst().filter { text[$0 - 1] == UInt8(ascii: "l") && text[$0].isASCIIDigit }
        }
        for start in starts {
            var scanner = Scanner(bytes: text[start...])
            guard let module = scanner.identifier(), let name = scanner.identifier() else { continue }
            if scanner.skip("V"), scanner.index == text.count {
                (self.module, self.name, self.argument, self.hasSignature) = (module, name, nil, start > 0)
                return
            }
            if scanner.skip("y"), text.last == UInt8(ascii: "G"), scanner.index < text.count - 1 {
                (self.module, self.name, self.argument) = (module, name, text[scanner.index..<(text.count - 1)])
                self.hasSignature = start > 0
                return
            }
        }
        (self.module, self.name, self.argument, self.hasSignature) = (nil, nil, nil, false)
    }

    /// The argument resolved to metadata, in the field's `context` (its generic parameters are those of
    /// the type that holds the field); `nil` when it cannot be resolved exactly.
    ///
    /// The argument, rewritten to stand alone, is resolved under ``HiddenTypeNameStandIn``. A private
    /// type cannot be looked up by name (the runtime refuses: its context has no name), nor can a type
    /// that is not `Copyable` (`Foundation.DateFormatter.State`), so an argument that is one nominal type
    /// that is not generic and nothing else (`7Fixture5State33_…LLV`, `Mutex<State>`) is resolved
    /// through its nominal type descriptor, the symbol `$s<argument>Mn` of the same module, and the
    /// descriptor's metadata accessor.
    func resolveArgument(context: UnsafeRawPointer?, genericArguments: UnsafeRawPointer?) -> UnsafeRawPointer? {
        guard let module, let name, let argument else { return nil }
        let prefixWords = hasSignature ? [] : Self.words(of: module) + Self.words(of: name)
        guard
            let rewritten = Self.rewrite(
                argument: argument, prefixWords: prefixWords, substitutionsAllowed: !hasSignature,
                wordsAllowed: !hasSignature)
        else { return nil }
        if let resolved = Self.resolveUnderStandIn(rewritten, context: context, genericArguments: genericArguments) {
            return resolved
        }
        guard let location, Self.isNominal(rewritten) else { return nil }
        let symbol = "$s" + String(decoding: rewritten, as: UTF8.self) + "Mn"
        guard let descriptor = lg_module_symbol(location, symbol).map(UnsafeRawPointer.init),
            let kind = ContextDescriptor(base: descriptor).kind, [.struct, .enum, .class].contains(kind),
            !ContextDescriptor(base: descriptor).isGeneric,
            let accessor = descriptor.relativeDirect(at: 12)
        else { return nil }
        // A type that is not generic: its metadata accessor takes the request alone.
        return lg_call_metadata_accessor(accessor).map(UnsafeRawPointer.init)
    }

    private static func resolveUnderStandIn(
        _ argument: [UInt8], context: UnsafeRawPointer?, genericArguments: UnsafeRawPointer?
    ) -> UnsafeRawPointer? {
        let full = standInPrefix + argument + [UInt8(ascii: "G")]
        let resolved = full.withUnsafeBytes { bytes in
            lg_type_by_mangled_name(
                bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count, context,
                genericArguments?.assumingMemoryBound(to: UnsafeRawPointer?.self))
        }
        guard let standIn = resolved.map({ UnsafeRawPointer($0) }), MetadataKind(of: standIn) == .struct,
            standIn.word(at: 8) == standInDescriptor
        else { return nil }
        return standIn.pointer(at: 16)
    }

    /// Whether `argument` is one nominal type that is not generic: identifiers and nominal kinds (`V`,
    /// `C`, `O`) only, its own name possibly private (`<name><discriminator>LL`), ending with its kind.
    static func isNominal(_ argument: [UInt8]) -> Bool {
        guard let kind = argument.last, Set("VCO".utf8).contains(kind), argument.count > 1 else { return false }
        var body = argument.dropLast()
        if body.suffix(2) == [UInt8(ascii: "L"), UInt8(ascii: "L")] { body = body.dropLast(2) }
        guard let first = body.first, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return false }
        var scanner = Scanner(bytes: body[...])
        while scanner.peek() != nil {
            if scanner.identifier() != nil { continue }
            guard let letter = scanner.next(), Set("VCO".utf8).contains(letter) else { return false }
        }
        return true
    }

    /// The outer type of the argument when it is an `Array`, `ContiguousArray`, `Dictionary` or `Set`
    /// of anything — one strong reference to its storage object, whose own metadata names the element
    /// types — read from the name as the runtime's demangler prints it (`Synchronization.Mutex<
    /// Swift.Dictionary<…>>`), so it needs no part of the argument resolved.
    func argumentCollection() -> String? {
        guard let module, let name, let demangled = Self.demangle(text) else { return nil }
        var rest = Substring(demangled)
        if rest.first == "<" {
            guard let close = Self.matchingClose(rest, from: rest.startIndex) else { return nil }
            rest = rest[rest.index(after: close)...]
        }
        let head = "\(module).\(name)<"
        guard rest.hasPrefix(head), rest.last == ">" else { return nil }
        let inner = rest.dropFirst(head.count).dropLast()
        for collection in ["Swift.Array", "Swift.ContiguousArray", "Swift.Dictionary", "Swift.Set"] {
            guard inner.hasPrefix(collection + "<"), let open = inner.firstIndex(of: "<"),
                Self.matchingClose(inner, from: open) == inner.index(before: inner.endIndex)
            else { continue }
            return collection
        }
        return nil
    }

    /// The index of the `>` that closes the `<` at `open` (an arrow `->` is no bracket).
    private static func matchingClose(_ text: Substring, from open: Substring.Index) -> Substring.Index? {
        var depth = 0
        var previous: Character = " "
        for index in text[open...].indices {
            let c = text[index]
            if c == "<" { depth += 1 }
            if c == ">", previous != "-" {
                depth -= 1
                if depth == 0 { return index }
            }
            previous = c
        }
        return nil
    }

    /// The whole name demangled by the runtime, or `nil`.
    static func demangle(_ text: [UInt8]) -> String? {
        let mangled: [UInt8] = Array("$s".utf8) + text + [UInt8(ascii: "D")]
        var buffer = [CChar](repeating: 0, count: 4096)
        let ok = mangled.withUnsafeBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { lg_demangle($0.baseAddress, $0.count, &buffer, buffer.count) }
        }
        let result = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return ok && !result.isEmpty && !result.hasPrefix("$s") ? result : nil
    }

    // MARK: Rewriting an argument

    /// Words of an identifier, as the demangler collects them: runs that start at a letter or other
    /// non-digit, non-underscore character and end at an underscore, the end, or a lowercase→uppercase
    /// change; only words of two characters or more.
    static func words(of identifier: String) -> [String] {
        words(of: Array(identifier.utf8)[...]).map { String(decoding: $0, as: UTF8.self) }
    }

    private static func words(of slice: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var wordStart: Int?
        let bytes = Array(slice)
        for index in 0...bytes.count {
            let c: UInt8 = index < bytes.count ? bytes[index] : 0
            if let start = wordStart, isWordEnd(c, previous: bytes[index - 1]) {
                if index - start >= 2 { result.append(bytes[start..<index]) }
                wordStart = nil
            }
            if wordStart == nil, isWordStart(c) { wordStart = index }
        }
        return result
    }

    private static func isWordStart(_ c: UInt8) -> Bool {
        !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) && c != UInt8(ascii: "_") && c != 0
    }

    private static func isWordEnd(_ c: UInt8, previous: UInt8) -> Bool {
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        return c == UInt8(ascii: "_") || c == 0 || (!upper.contains(previous) && upper.contains(c))
    }

    /// How many substitutions the wrapper's own prefix adds (module identifier, type identifier, type):
    /// the stand-in's prefix adds as many, so later indices keep their meaning, and these must not be used.
    static let prefixSubstitutions = 3

    /// The argument with every word substitution spelled out. Accepts identifiers, substitutions of later
    /// names (`A` + index ≥ ``prefixSubstitutions``), standard substitutions (`Si`, `SS`, `Sg`, `Say…G`),
    /// the Swift module `s`, generic parameters (`x`, `q_`, `qd__`), private and local names (`LL`, `L_`),
    /// function and tuple operators, and one-letter operators of nominal and structural types; `nil` for
    /// anything else.
    static func rewrite(
        argument: ArraySlice<UInt8>, prefixWords: [String], substitutionsAllowed: Bool = true, wordsAllowed: Bool = true
    ) -> [UInt8]? {
        var words: [[UInt8]] = prefixWords.map { Array($0.utf8) }
        var output: [UInt8] = []
        var scanner = Scanner(bytes: argument)
        let single = Set("yG_tcVCONPpmxzdKhnoTWE".utf8)
        while let byte = scanner.peek() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard wordsAllowed || byte != UInt8(ascii: "0"), let identifier = scanner.identifier(words: &words)
                else { return nil }
                output += Array(String(identifier.count).utf8) + identifier
            case UInt8(ascii: "A"):
                guard substitutionsAllowed else { return nil }
                // Substitutions: `A` INDEX (index ≥ 26) or `A` ([count] letter)* [count] Letter (index < 26).
                let start = scanner.index
                scanner.index += 1
                if scanner.peek() == UInt8(ascii: "_") || scanner.peekIsDigitRunThenUnderscore() {
                    _ = scanner.natural()
                    guard scanner.skip("_") else { return nil }
                } else {
                    while true {
                        _ = scanner.natural()
                        guard let letter = scanner.next() else { return nil }
                        let lower = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter)
                        let upper = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(letter)
                        guard lower || upper else { return nil }
                        let index = Int(letter - (lower ? UInt8(ascii: "a") : UInt8(ascii: "A")))
                        guard index >= prefixSubstitutions else { return nil }
                        if upper { break }
                    }
                }
                output += argument[start..<scanner.index]
            case UInt8(ascii: "S"):
                let start = scanner.index
                scanner.index += 1
                _ = scanner.natural()
                guard let kind = scanner.next(), kind.isASCIILetter else { return nil }
                if kind == UInt8(ascii: "c") {
                    guard let concurrency = scanner.next(), concurrency.isASCIILetter else { return nil }
                }
                output += argument[start..<scanner.index]
            case UInt8(ascii: "s"):
                scanner.index += 1
                output.append(byte)
            case UInt8(ascii: "q"):
                let start = scanner.index
                scanner.index += 1
                let indices = scanner.skip("d") ? 2 : 1
                for _ in 0..<indices {
                    _ = scanner.natural()
                    guard scanner.skip("_") else { return nil }
                }
                output += argument[start..<scanner.index]
            case UInt8(ascii: "L"):
                let start = scanner.index
                scanner.index += 1
                if !scanner.skip("L") {
                    _ = scanner.natural()
                    guard scanner.skip("_") else { return nil }
                }
                output += argument[start..<scanner.index]
            case UInt8(ascii: "Y"), UInt8(ascii: "X"):
                let start = scanner.index
                scanner.index += 1
                guard let kind = scanner.next(), kind.isASCIILetter else { return nil }
                output += argument[start..<scanner.index]
            default:
                guard single.contains(byte) else { return nil }
                scanner.index += 1
                output.append(byte)
            }
        }
        return output
    }

    /// A cursor over mangled text.
    struct Scanner {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }

        mutating func next() -> UInt8? {
            guard let byte = peek() else { return nil }
            index += 1
            return byte
        }

        mutating func skip(_ text: String) -> Bool {
            let expected = Array(text.utf8)
            guard index + expected.count <= bytes.endIndex, Array(bytes[index..<(index + expected.count)]) == expected
            else { return false }
            index += expected.count
            return true
        }

        func peekIsDigitRunThenUnderscore() -> Bool {
            var cursor = index
            guard cursor < bytes.endIndex, bytes[cursor].isASCIIDigit else { return false }
            while cursor < bytes.endIndex, bytes[cursor].isASCIIDigit { cursor += 1 }
            return cursor < bytes.endIndex && bytes[cursor] == UInt8(ascii: "_")
        }

        /// A natural number, or `nil` (nothing consumed) when none starts here.
        mutating func natural() -> Int? {
            guard let first = peek(), first.isASCIIDigit else { return nil }
            var value = 0
            while let digit = peek(), digit.isASCIIDigit {
                value = value * 10 + Int(digit - UInt8(ascii: "0"))
                index += 1
                if value > 1 << 20 { return nil }
            }
            return value
        }

        /// A plain identifier (`15Synchronization`); `nil` for anything else.
        mutating func identifier() -> String? {
            guard let first = peek(), first != UInt8(ascii: "0"), let length = natural(), length > 0,
                index + length <= bytes.endIndex
            else { return nil }
            defer { index += length }
            return String(decoding: bytes[index..<(index + length)], as: UTF8.self)
        }

        /// An identifier, plain or with word substitutions (`0a7Handler`: word 0, then `Handler`), spelled
        /// out, its literal parts' words appended to `words` as the demangler does; `nil` for punycode or
        /// a malformed identifier.
        mutating func identifier(words: inout [[UInt8]]) -> [UInt8]? {
            var hasWordSubstitutions = false
            if peek() == UInt8(ascii: "0") {
                index += 1
                guard peek() != UInt8(ascii: "0") else { return nil }  // punycode
                hasWordSubstitutions = true
            }
            var result: [UInt8] = []
            repeat {
                while hasWordSubstitutions, let letter = peek(), letter.isASCIILetter {
                    index += 1
                    let lower = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter)
                    let wordIndex = Int(letter - (lower ? UInt8(ascii: "a") : UInt8(ascii: "A")))
                    if !lower { hasWordSubstitutions = false }
                    guard wordIndex < words.count else { return nil }
                    result += words[wordIndex]
                }
                if skip("0") { break }
                guard let length = natural(), length > 0, index + length <= bytes.endIndex else { return nil }
                let literal = bytes[index..<(index + length)]
                result += literal
                for word in HiddenTypeName.words(of: literal) where words.count < 26 { words.append(Array(word)) }
                index += length
            } while hasWordSubstitutions
            return result
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isASCIILetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
}

/// The `Copyable` stand-in a hidden type's argument is resolved under: a generic struct of one
/// unconstrained parameter, whose mangled prefix adds as many substitutions as the wrapper's own
/// (its module and name identifiers, then the type).
struct HiddenTypeNameStandIn<Argument> {}

extension HiddenTypeName {
    /// `<module><name>Vy` of ``HiddenTypeNameStandIn``.
    static let standInPrefix: [UInt8] = {
        let module = "LeakGraphHeap", name = "HiddenTypeNameStandIn"
        return Array("\(module.utf8.count)\(module)\(name.utf8.count)\(name)Vy".utf8)
    }()

    /// The stand-in's nominal type descriptor, to recognise its metadata.
    static let standInDescriptor: UInt = unsafeBitCast(
        HiddenTypeNameStandIn<Int>.self as Any.Type, to: UnsafeRawPointer.self
    )
    .word(at: 8)
}
