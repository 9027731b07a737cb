import CLeakGraphMetadata

/// A mangled type name, as capture descriptors and field records store it, parsed into the structure a
/// layout needs: which parts are function values (a pointer and a context, whatever their signature),
/// class references (a pointer, whatever their generic arguments), tuples, `Optional`s, generic
/// parameters and bound generic types (with their arguments in generic-argument order) — and, for every
/// part, the bytes the runtime can resolve on their own.
///
/// Capture descriptors name captured values by their lowered (SIL) types
/// (`x<Error>_pIegnzo_Sg9onSuccess_AA_pAA_pIeggzo_Sg0A5Errort`: a tuple of two optional throwing
/// closures), which the runtime cannot build metadata for, so the walk lays them out itself. The mangling
/// is postfix (docs/ABI/Mangling.rst): operands come first, an operator closes them. The parser runs it
/// on a stack as the runtime's demangler does (lib/Demangling/Demangler.cpp), including its substitution
/// table — symbolic references, identifiers, nominal and bound generic types and `Optional` sugar are
/// recorded in the order the demangler records them, and `A…` names one of them again — and its word
/// table (an identifier `0A5Error` reuses the word `on` of an earlier `onSuccess`). It accepts a
/// deliberately small part of the grammar and returns `nil` for anything else (associated types, opaque
/// types, generic signatures but a substituted function type's, local and private names, differentiable
/// functions, coroutines…), so a name it cannot split exactly is never laid out by guesswork.
struct MangledTypeTree {
    /// One type within the name.
    struct Node {
        /// Bytes `start ..< end` of the name spell this type (for a substitution: the reference itself).
        var start: Int
        var end: Int
        /// Bytes of the name the runtime can resolve on their own as this type (a symbolic reference is
        /// relative to its own address, so a part resolves in place): the node's own bytes, or for a
        /// substitution those of the type it repeats; `nil` when the spelling depends on what came before
        /// (a substitution inside, a word-substituted identifier).
        var resolvable: Range<Int>?
        /// What the type is.
        var shape: Shape
        /// The generic parameters the type mentions.
        var parameters: Set<GenericParameter>
    }

    /// What a layout needs to know about a type.
    indirect enum Shape {
        /// A generic parameter (`x`, `q_`, `qd__`…).
        case parameter(GenericParameter)
        /// A nominal type without generic arguments.
        case nominal(Nominal)
        /// A nominal type with generic arguments, flattened in generic-argument order (outermost context
        /// first, as the runtime orders them).
        case bound(Nominal, arguments: [Node])
        /// `Optional` of a type (`Sg`, or `Sq` with one argument).
        case optional(Node)
        /// A tuple and its elements, in order.
        case tuple([Element])
        /// A function value, formal (`…c`) or lowered (`…I…_`).
        case function(FunctionRepresentation)
        /// A lowered metatype with an explicit representation (`XMT` thick: a metadata pointer; `XMt` thin:
        /// no storage) of the instance type.
        case metatype(Node, thick: Bool)
        /// A `weak` (`Xw`), `unowned` (`Xo`) or `unowned(unsafe)` (`Xu`) reference.
        case storage(MangledName.ReferenceStorage, Node)
        /// Anything else (standard types, existentials, builtins, formal metatypes): resolved by the runtime.
        case other
    }

    /// A nominal type as the name refers to it.
    enum Nominal {
        /// A symbolic reference to the type's context descriptor.
        case descriptor(UnsafeRawPointer)
        /// A type named by identifiers (`4main3FooC`): only its kind is known here.
        case named(ContextDescriptor.Kind)
        /// A standard-library type named by its substitution (`Sa`, `SD`, `Sq`…).
        case standard(UInt8)

        /// Whether the type is named by a standard substitution.
        var isStandard: Bool {
            if case .standard = self { return true }
            return false
        }

        /// Whether the type is a protocol.
        var isProtocol: Bool {
            switch self {
            case .descriptor(let descriptor): return ContextDescriptor(base: descriptor).kind == .protocol
            case .named(let kind): return kind == .protocol
            case .standard: return false
            }
        }

        /// Whether values of the type are a class reference (one native object pointer).
        var isClass: Bool {
            switch self {
            case .descriptor(let descriptor): return ContextDescriptor(base: descriptor).kind == .class
            case .named(let kind): return kind == .class
            case .standard: return false
            }
        }
    }

    /// How a function value is stored.
    enum FunctionRepresentation: Equatable {
        /// A Swift closure: a function pointer and a strong context (16 bytes), whatever the signature
        /// (throwing, typed throws, async, `@Sendable`, global-actor isolated, `@isolated(any)`).
        case thick
        /// A non-escaping closure: a function pointer and a context it does not own (16 bytes).
        case noescape
        /// A thin function, a C function pointer or a method: one pointer, no context.
        case thin
        /// A `@convention(block)` value: a pointer to a heap block.
        case block
    }

    /// One tuple element: its type and its label, if it has one.
    struct Element {
        var node: Node
        var label: String?
    }

    /// Parses a whole mangled type name (symbolic references included); symbolic references are followed
    /// from `base`, the address of the name's first byte (`nil` when the name has none).
    static func parse(_ bytes: [UInt8], base: UnsafeRawPointer?) -> Node? {
        var parser = Parser(bytes: bytes, base: base)
        return parser.run()
    }

    /// Parses a mangled name stored in reflection metadata.
    static func parse(_ name: MangledName) -> Node? {
        parse(name.bytes, base: name.start)
    }

    /// Parses `bytes` (with no symbolic references) as several whole types one after another — a key
    /// path's index types in its argument thunk's name, `7Fixture5StoreCSi` — into their nodes in order;
    /// `nil` unless every byte belongs to exactly one of them.
    static func parseSequence(_ bytes: [UInt8]) -> [Node]? {
        var parser = Parser(bytes: bytes, base: nil)
        return parser.runSequence()
    }

    private struct Identifier {
        var start: Int
        var end: Int
        var text: String
        var standalone: Bool
    }

    private enum Item {
        case node(Node)
        case identifier(Identifier)
        case module(start: Int)  // `s`, `So`, `SC`
        case listStart(Int)  // `y`: an empty list, or the start of a bound generic's arguments
        case separator(Int)  // `_`: after a list's first element
        case marker(start: Int, standalone: Bool)  // a function annotation (`Ya`, `K`, `YK`…), a variadic `d`
        case requirement(Int)  // `R…`: one requirement of a generic signature being read
        case signature(Int)  // `l`, `r…l`: a generic signature (of a substituted function type's pattern)
    }

    private enum Substitution {
        case node(Node)
        case identifier(Identifier)
    }

    private struct Parser {
        let bytes: [UInt8]
        let base: UnsafeRawPointer?
        var index = 0
        var stack: [Item] = []
        var substitutions: [Substitution] = []
        var words: [String] = []

        init(bytes: [UInt8], base: UnsafeRawPointer?) {
            self.bytes = bytes
            self.base = base
        }

        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func next(_ byte: Character) -> Bool {
            guard peek() == byte.asciiValue else { return false }
            index += 1
            return true
        }

        mutating func popNode() -> Node? {
            guard case .node(let node)? = stack.last else { return nil }
            stack.removeLast()
            return node
        }

        /// A node made of `parts` (consumed items), spanning `start ..< index`. Its bytes resolve on their
        /// own when every part's do — or when it starts the name: the runtime then reads its substitutions
        /// and words in the same order as here.
        func composite(start: Int, parts: [Node], standalone extra: Bool = true, shape: Shape) -> Node {
            let standalone = start == 0 || extra && parts.allSatisfy { $0.resolvable == $0.start..<$0.end }
            var parameters = Set<GenericParameter>()
            for part in parts { parameters.formUnion(part.parameters) }
            return Node(
                start: start, end: index, resolvable: standalone ? start..<index : nil, shape: shape,
                parameters: parameters)
        }

        mutating func run() -> Node? {
            while let byte = peek() {
                guard step(byte) else { return nil }
                guard stack.count < 4096 else { return nil }
            }
            guard stack.count == 1, case .node(let node) = stack[0], node.end == bytes.count else { return nil }
            return node
        }

        /// Like ``run()``, for names that are several whole types in a row.
        mutating func runSequence() -> [Node]? {
            guard !bytes.isEmpty else { return nil }
            while let byte = peek() {
                guard step(byte) else { return nil }
                guard stack.count < 4096 else { return nil }
            }
            var nodes: [Node] = []
            for item in stack {
                guard case .node(let node) = item, node.start == (nodes.last?.end ?? 0) else { return nil }
                nodes.append(node)
            }
            return nodes.last?.end == bytes.count ? nodes : nil
        }

        mutating func step(_ byte: UInt8) -> Bool {
            let start = index
            switch byte {
            case 0x01, 0x02:
                return symbolicReference(byte)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let identifier = identifier() else { return false }
                substitutions.append(.identifier(identifier))
                stack.append(.identifier(identifier))
            case UInt8(ascii: "A"):
                index += 1
                return multiSubstitution(start: start)
            case UInt8(ascii: "B"):
                index += 1
                return builtin(start: start)
            case UInt8(ascii: "C"), UInt8(ascii: "V"), UInt8(ascii: "O"), UInt8(ascii: "P"):
                index += 1
                let kind: ContextDescriptor.Kind =
                    byte == UInt8(ascii: "C")
                    ? .class : byte == UInt8(ascii: "V") ? .struct : byte == UInt8(ascii: "O") ? .enum : .protocol
                return namedNominal(kind)
            case UInt8(ascii: "G"):
                index += 1
                return boundGeneric()
            case UInt8(ascii: "I"):
                index += 1
                guard let function = implFunction(start: start) else { return false }
                stack.append(.node(function))
            case UInt8(ascii: "Q"):
                index += 1
                return associatedType(start: start)
            case UInt8(ascii: "K"), UInt8(ascii: "d"):
                index += 1
                stack.append(.marker(start: start, standalone: true))
            case UInt8(ascii: "S"):
                index += 1
                return standard(start: start)
            case UInt8(ascii: "X"):
                index += 1
                return special(start: start)
            case UInt8(ascii: "Y"):
                index += 1
                return annotation(start: start)
            case UInt8(ascii: "c"):
                index += 1
                return formalFunction(.thick)
            case UInt8(ascii: "h"), UInt8(ascii: "n"), UInt8(ascii: "z"):
                // `__shared`, `__owned`, `inout` (function parameters): the type itself.
                index += 1
                guard var node = popNode() else { return false }
                node = composite(start: node.start, parts: [node], shape: node.shape)
                stack.append(.node(node))
            case UInt8(ascii: "m"):
                index += 1
                guard let instance = popNode() else { return false }
                stack.append(.node(composite(start: instance.start, parts: [instance], shape: .other)))
            case UInt8(ascii: "p"):
                index += 1
                guard let list = protocolList() else { return false }
                stack.append(
                    .node(composite(start: list.start, parts: list.parts, standalone: list.standalone, shape: .other)))
            case UInt8(ascii: "q"):
                index += 1
                guard let parameter = genericParameter() else { return false }
                stack.append(
                    .node(
                        Node(
                            start: start, end: index, resolvable: start..<index, shape: .parameter(parameter),
                            parameters: [parameter])))
            case UInt8(ascii: "x"):
                index += 1
                let parameter = GenericParameter(depth: 0, index: 0)
                stack.append(
                    .node(
                        Node(
                            start: start, end: index, resolvable: start..<index, shape: .parameter(parameter),
                            parameters: [parameter])))
            case UInt8(ascii: "s"):
                index += 1
                stack.append(.module(start: start))
            case UInt8(ascii: "t"):
                index += 1
                return tuple()
            case UInt8(ascii: "y"):
                index += 1
                stack.append(.listStart(start))
            case UInt8(ascii: "_"):
                index += 1
                stack.append(.separator(start))
            case UInt8(ascii: "R"):
                index += 1
                return requirement(start: start)
            case UInt8(ascii: "l"), UInt8(ascii: "r"):
                index += 1
                return genericSignature(start: start, counted: byte == UInt8(ascii: "r"))
            default:
                return false
            }
            return true
        }

        // MARK: Generic signatures (the pattern of a substituted function type)

        /// A requirement after its `R`: an inverse one (`Ri` INDEX GENERIC-PARAM-INDEX: `~Copyable`,
        /// `~Escapable`), a conformance to the protocol before it (`R` GENERIC-PARAM-INDEX), a base class or
        /// a same-type requirement on the type before it (`Rb`, `Rs`). Anything else (layout constraints,
        /// associated-type paths, packs, values) is not read.
        mutating func requirement(start: Int) -> Bool {
            if next("i") {
                guard mangledIndex() != nil, genericParameter() != nil else { return false }
            } else if next("b") || next("s") {
                guard popNode() != nil, genericParameter() != nil else { return false }
            } else {
                guard let letter = peek(),
                    letter == UInt8(ascii: "z") || letter == UInt8(ascii: "d")
                        || letter == UInt8(ascii: "_") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(letter),
                    let conformed = popNode(), case .nominal(let nominal) = conformed.shape, nominal.isProtocol,
                    genericParameter() != nil
                else { return false }
            }
            stack.append(.requirement(start))
            return true
        }

        /// A generic signature's end: `l` (one generic parameter), or `r`, one count per depth, `l`; it takes
        /// the requirements just before it.
        mutating func genericSignature(start: Int, counted: Bool) -> Bool {
            if counted {
                while !next("l") {
                    guard next("z") || mangledIndex() != nil else { return false }
                }
            }
            var first = start
            while case .requirement(let requirementStart)? = stack.last {
                stack.removeLast()
                first = requirementStart
            }
            stack.append(.signature(first))
            return true
        }

        // MARK: Symbolic references and substitutions

        /// A symbolic reference to a context descriptor: 0x01 direct, 0x02 through a pointer. Types
        /// register as substitutions when referenced this way.
        mutating func symbolicReference(_ kind: UInt8) -> Bool {
            let start = index
            guard index + 5 <= bytes.count, let base else { return false }
            let field = base + index + 1
            var target = field + Int(field.int32(at: 0))
            if kind == 0x02 {
                guard let pointer = target.pointer(at: 0) else { return false }
                target = pointer
            }
            index += 5
            switch ContextDescriptor(base: target).kind {
            case .class?, .struct?, .enum?, .protocol?: break
            default: return false  // opaque types and others: not types this parser lays out
            }
            let node = Node(
                start: start, end: index, resolvable: start..<index, shape: .nominal(.descriptor(target)),
                parameters: [])
            substitutions.append(.node(node))
            stack.append(.node(node))
            return true
        }

        /// `A` followed by lowercase letters (more to follow), then an uppercase letter, each an index
        /// below 26 with an optional repeat count before it; or `A <n> _`, index `n + 27`.
        mutating func multiSubstitution(start: Int) -> Bool {
            var repeatCount = -1
            while let byte = peek() {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"):
                    index += 1
                    guard push(substitution: Int(byte - UInt8(ascii: "a")), times: repeatCount, start: start) else {
                        return false
                    }
                    repeatCount = -1
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    index += 1
                    return push(substitution: Int(byte - UInt8(ascii: "A")), times: repeatCount, start: start)
                case UInt8(ascii: "_"):
                    index += 1
                    return push(substitution: repeatCount + 27, times: 1, start: start)
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard let count = natural(), count < 64 else { return false }
                    repeatCount = count
                default:
                    return false
                }
            }
            return false
        }

        mutating func push(substitution position: Int, times: Int, start: Int) -> Bool {
            guard position >= 0, position < substitutions.count else { return false }
            for _ in 0..<max(times, 1) {
                switch substitutions[position] {
                case .node(let node):
                    stack.append(
                        .node(
                            Node(
                                start: start, end: index, resolvable: node.resolvable, shape: node.shape,
                                parameters: node.parameters)))
                case .identifier(let identifier):
                    stack.append(
                        .identifier(Identifier(start: start, end: index, text: identifier.text, standalone: false)))
                }
            }
            return true
        }

        // MARK: Identifiers and numbers

        /// `<n>` decimal digits.
        mutating func natural() -> Int? {
            var value = 0
            var digits = 0
            while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                index += 1
                digits += 1
                guard value < 1 << 20 else { return nil }
            }
            return digits > 0 ? value : nil
        }

        /// INDEX: `_` is 0, `<n>_` is n + 1.
        mutating func mangledIndex() -> Int? {
            if next("_") { return 0 }
            guard let value = natural(), next("_") else { return nil }
            return value + 1
        }

        /// A generic parameter after its `q`: `q<INDEX>` is τ_0_(INDEX+1), `qd<INDEX><INDEX>` τ_(d+1)_i,
        /// `qz` τ_0_0.
        mutating func genericParameter() -> GenericParameter? {
            if next("d") {
                guard let depth = mangledIndex(), let index = mangledIndex() else { return nil }
                return GenericParameter(depth: depth + 1, index: index)
            }
            if next("z") { return GenericParameter(depth: 0, index: 0) }
            guard let index = mangledIndex() else { return nil }
            return GenericParameter(depth: 0, index: index + 1)
        }

        /// An identifier: `<n><n bytes>`, or `0` followed by word substitutions (lowercase: more follow,
        /// uppercase: the last) and literal parts, as the demangler reads it; each literal part adds its
        /// words (runs of two or more characters, split before an uppercase letter after a lowercase one
        /// and at `_`) to the word table, at most 26.
        mutating func identifier() -> Identifier? {
            let start = index
            var wordSubstitutions = false
            if peek() == UInt8(ascii: "0") {
                index += 1
                guard peek() != UInt8(ascii: "0") else { return nil }  // Punycode
                wordSubstitutions = true
            }
            let standalone = !wordSubstitutions
            var text: [UInt8] = []
            repeat {
                while wordSubstitutions, let byte = peek(), isLetter(byte) {
                    index += 1
                    let word: Int
                    if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) {
                        word = Int(byte - UInt8(ascii: "a"))
                    } else {
                        word = Int(byte - UInt8(ascii: "A"))
                        wordSubstitutions = false
                    }
                    guard word < words.count else { return nil }
                    text += Array(words[word].utf8)
                }
                if next("0") { break }
                guard let length = natural(), length > 0, index + length <= bytes.count else { return nil }
                let slice = Array(bytes[index..<(index + length)])
                text += slice
                addWords(slice)
                index += length
            } while wordSubstitutions
            guard !text.isEmpty else { return nil }
            return Identifier(
                start: start, end: index, text: String(decoding: text, as: UTF8.self), standalone: standalone)
        }

        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }

        mutating func addWords(_ slice: [UInt8]) {
            func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
            func isUpper(_ byte: UInt8) -> Bool { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) }
            var wordStart = -1
            for position in 0...slice.count {
                let byte = position < slice.count ? slice[position] : 0
                if wordStart >= 0,
                    byte == UInt8(ascii: "_") || byte == 0 || (!isUpper(slice[position - 1]) && isUpper(byte))
                {
                    if position - wordStart >= 2, words.count < 26 {
                        words.append(String(decoding: slice[wordStart..<position], as: UTF8.self))
                    }
                    wordStart = -1
                }
                if wordStart < 0, !isDigit(byte), byte != UInt8(ascii: "_"), byte != 0 {
                    wordStart = position
                }
            }
        }

        /// `<name> <protocol>? Q…`: a generic parameter's associated type (`5Value<P>Qz` is `A.Value`; `Qy`
        /// names the parameter, `Qx` takes a type from the stack). Resolved by the runtime, which finds the
        /// conformance, once the parameter is known. Compound paths (`QX`, `QY`, `QZ`) are refused.
        mutating func associatedType(start: Int) -> Bool {
            guard let kind = peek() else { return false }
            index += 1
            var base: Node?
            switch kind {
            case UInt8(ascii: "z"):
                let parameter = GenericParameter(depth: 0, index: 0)
                base = Node(
                    start: start, end: start, resolvable: start..<start, shape: .parameter(parameter),
                    parameters: [parameter])
            case UInt8(ascii: "y"):
                guard let parameter = genericParameter() else { return false }
                base = Node(
                    start: start, end: start, resolvable: start..<start, shape: .parameter(parameter),
                    parameters: [parameter])
            case UInt8(ascii: "x"):
                base = nil  // popped below, after the name
            default:
                return false
            }
            // The associated type's name: a protocol (optional), then the identifier.
            var parts: [Node] = []
            // (A standard substitution there, `Sci` AsyncSequence or `ST` Sequence, can only be a protocol.)
            if case .node(let proto)? = stack.last, case .nominal(let nominal) = proto.shape,
                nominal.isProtocol || nominal.isStandard
            {
                stack.removeLast()
                parts.append(proto)
            }
            guard case .identifier(let name)? = stack.popLast() else { return false }
            if base == nil {
                guard let popped = popNode() else { return false }
                base = popped
            }
            let first = kind == UInt8(ascii: "x") ? base!.start : name.start
            var node = composite(start: first, parts: parts + [base!], standalone: name.standalone, shape: .other)
            node.parameters.formUnion(base!.parameters)
            substitutions.append(.node(node))
            stack.append(.node(node))
            return true
        }

        // MARK: Nominal types

        /// `<context> <name> C|V|O|P`: a nominal type named by identifiers.
        mutating func namedNominal(_ kind: ContextDescriptor.Kind) -> Bool {
            guard case .identifier(let name)? = stack.popLast() else { return false }
            let contextStart: Int
            var standalone = name.standalone
            switch stack.popLast() {
            case .module(let start)?: contextStart = start
            case .identifier(let module)?:
                contextStart = module.start
                standalone = standalone && module.standalone
            case .node(let parent)?:
                contextStart = parent.start
                standalone = standalone && parent.resolvable == parent.start..<parent.end
            default: return false
            }
            let node = Node(
                start: contextStart, end: index, resolvable: standalone ? contextStart..<index : nil,
                shape: .nominal(.named(kind)), parameters: [])
            substitutions.append(.node(node))
            stack.append(.node(node))
            return true
        }

        /// `<nominal> y <arguments of the outermost level> _ … <arguments of the innermost> G`.
        mutating func boundGeneric() -> Bool {
            var levels: [[Node]] = []  // innermost first
            while true {
                var level: [Node] = []
                while case .node(let node)? = stack.last {
                    stack.removeLast()
                    level.insert(node, at: 0)
                }
                levels.append(level)
                if case .listStart? = stack.last {
                    stack.removeLast()
                    break
                }
                guard case .separator? = stack.popLast() else { return false }
            }
            guard let base = popNode(), case .nominal(let nominal) = base.shape else { return false }
            let arguments = Array(levels.reversed().joined())
            let shape: Shape
            if case .standard(UInt8(ascii: "q")) = nominal, arguments.count == 1 {
                shape = .optional(arguments[0])
            } else {
                shape = .bound(nominal, arguments: arguments)
            }
            let node = composite(start: base.start, parts: [base] + arguments, shape: shape)
            substitutions.append(.node(node))
            stack.append(.node(node))
            return true
        }

        /// `S…`: `Sg` (`Optional` of the type before it), `So`/`SC` (the Objective-C and Clang modules), or
        /// a standard type (`Si`, `SS`, `Sa`, `ScT`…), optionally repeated (`S2i`).
        mutating func standard(start: Int) -> Bool {
            if next("g") {
                guard let wrapped = popNode() else { return false }
                let node = composite(start: wrapped.start, parts: [wrapped], shape: .optional(wrapped))
                substitutions.append(.node(node))
                stack.append(.node(node))
                return true
            }
            if next("o") || next("C") {
                stack.append(.module(start: start))
                return true
            }
            let repeatCount = natural() ?? 1
            guard repeatCount >= 1, repeatCount < 64 else { return false }
            let secondLevel = next("c")
            guard let letter = peek(), isLetter(letter) else { return false }
            index += 1
            let code = secondLevel ? 0 : letter  // second-level (concurrency) types are never generic bases here
            for _ in 0..<repeatCount {
                stack.append(
                    .node(
                        Node(
                            start: start, end: index, resolvable: start..<index, shape: .nominal(.standard(code)),
                            parameters: [])))
            }
            return true
        }

        /// `B…`: builtin types the runtime knows (`Bo` NativeObject, `Bb` BridgeObject, `Bp` RawPointer,
        /// `Bi<n>_` integers…).
        mutating func builtin(start: Int) -> Bool {
            guard let kind = peek() else { return false }
            index += 1
            switch kind {
            case UInt8(ascii: "i"), UInt8(ascii: "f"):
                guard mangledIndex() != nil else { return false }
            case UInt8(ascii: "b"), UInt8(ascii: "B"), UInt8(ascii: "e"), UInt8(ascii: "I"), UInt8(ascii: "O"),
                UInt8(ascii: "o"),
                UInt8(ascii: "p"), UInt8(ascii: "j"), UInt8(ascii: "D"), UInt8(ascii: "c"), UInt8(ascii: "w"):
                break
            default:
                return false
            }
            stack.append(
                .node(Node(start: start, end: index, resolvable: start..<index, shape: .other, parameters: [])))
            return true
        }

        // MARK: Tuples and existentials

        /// `t`: the elements back to a separator, then one more (the first element of a list is followed by
        /// `_`); each element a type, then its label and a variadic marker if any. `y t` is the empty tuple.
        mutating func tuple() -> Bool {
            let end = index
            if case .listStart(let listStart)? = stack.last {
                stack.removeLast()
                stack.append(
                    .node(
                        Node(start: listStart, end: end, resolvable: listStart..<end, shape: .tuple([]), parameters: [])
                    ))
                return true
            }
            var elements: [Element] = []
            var standalone = true
            var reachedFirst = false
            while !reachedFirst {
                if case .separator? = stack.last {  // the element below it is the first
                    stack.removeLast()
                    reachedFirst = true
                }
                if case .marker(_, let markerStandalone)? = stack.last {  // variadic
                    stack.removeLast()
                    standalone = standalone && markerStandalone
                }
                var label: String?
                if case .identifier(let identifier)? = stack.last {
                    stack.removeLast()
                    label = identifier.text
                    standalone = standalone && identifier.standalone
                }
                guard let node = popNode() else { return false }
                elements.append(Element(node: node, label: label))
            }
            elements.reverse()
            let node = composite(
                start: elements[0].node.start, parts: elements.map(\.node), standalone: standalone,
                shape: .tuple(elements))
            stack.append(.node(node))
            return true
        }

        /// An existential's protocol list before its `p` (or `Xl`): `y` (none), or protocols `P1 _ P2 …`.
        mutating func protocolList() -> (start: Int, parts: [Node], standalone: Bool)? {
            if case .listStart(let start)? = stack.last {
                stack.removeLast()
                return (start, [], true)
            }
            var parts: [Node] = []
            while case .node(let node)? = stack.last {
                stack.removeLast()
                parts.append(node)
            }
            guard case .separator? = stack.popLast(), let first = popNode() else { return nil }
            parts.append(first)
            return (first.start, parts, true)
        }

        // MARK: Functions

        /// A formal function type: annotations (`Ya` async, `Yb` `@Sendable`, `K` throws, `<type> YK` typed
        /// throws, `<type> Yc` global actor, `YA` `@isolated(any)`, `YT` sending result), then its parameters
        /// and its result (either may be an empty list `y`).
        mutating func formalFunction(_ representation: FunctionRepresentation) -> Bool {
            let end = index
            var standalone = true
            while case .marker(_, let markerStandalone)? = stack.last {
                stack.removeLast()
                standalone = standalone && markerStandalone
            }
            var parts: [Node] = []
            var operandStart = end
            for _ in 0..<2 {
                switch stack.popLast() {
                case .node(let node)?:
                    parts.append(node)
                    operandStart = node.start
                case .listStart(let start)?:
                    operandStart = start
                default:
                    return false
                }
            }
            stack.append(
                .node(
                    composite(
                        start: operandStart, parts: parts, standalone: standalone, shape: .function(representation))))
            return true
        }

        /// `Y…` type annotations.
        mutating func annotation(start: Int) -> Bool {
            guard let kind = peek() else { return false }
            index += 1
            switch kind {
            case UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "A"), UInt8(ascii: "T"):
                stack.append(.marker(start: start, standalone: true))
            case UInt8(ascii: "c"), UInt8(ascii: "K"):
                // A global actor or a thrown error type: part of the function's signature, not its layout.
                guard let type = popNode() else { return false }
                stack.append(.marker(start: type.start, standalone: type.resolvable == type.start..<type.end))
            case UInt8(ascii: "i"), UInt8(ascii: "k"), UInt8(ascii: "t"), UInt8(ascii: "u"):
                // `isolated`, `@noDerivative`, `_const`, `sending` parameters: the type itself.
                guard let node = popNode() else { return false }
                stack.append(.node(composite(start: node.start, parts: [node], shape: node.shape)))
            default:
                return false
            }
            return true
        }

        /// `X…` special types.
        mutating func special(start: Int) -> Bool {
            guard let kind = peek() else { return false }
            index += 1
            switch kind {
            case UInt8(ascii: "E"), UInt8(ascii: "K"): return formalFunction(.noescape)
            case UInt8(ascii: "A"): return formalFunction(.thick)  // an escaping autoclosure
            case UInt8(ascii: "f"), UInt8(ascii: "C"): return formalFunction(.thin)
            case UInt8(ascii: "B"), UInt8(ascii: "L"): return formalFunction(.block)
            case UInt8(ascii: "o"), UInt8(ascii: "u"), UInt8(ascii: "w"):
                guard let referent = popNode() else { return false }
                let storage: MangledName.ReferenceStorage =
                    kind == UInt8(ascii: "w") ? .weak : kind == UInt8(ascii: "o") ? .unowned : .unownedUnsafe
                stack.append(
                    .node(composite(start: referent.start, parts: [referent], shape: .storage(storage, referent))))
            case UInt8(ascii: "M"):
                guard let representation = peek(),
                    representation == UInt8(ascii: "t") || representation == UInt8(ascii: "T"),
                    let instance = popNode()
                else { return false }
                index += 1
                stack.append(
                    .node(
                        composite(
                            start: instance.start, parts: [instance], standalone: false,
                            shape: .metatype(instance, thick: representation == UInt8(ascii: "T")))))
            case UInt8(ascii: "m"):
                // An existential metatype with its representation: left to the runtime, without the letter.
                guard let representation = peek(), representation == UInt8(ascii: "T"), let instance = popNode() else {
                    return false
                }
                index += 1
                stack.append(
                    .node(composite(start: instance.start, parts: [instance], standalone: false, shape: .other)))
            case UInt8(ascii: "p"):
                guard let instance = popNode() else { return false }
                stack.append(.node(composite(start: instance.start, parts: [instance], shape: .other)))
            case UInt8(ascii: "l"):
                guard let list = protocolList() else { return false }
                stack.append(.node(composite(start: list.start, parts: list.parts, shape: .other)))
            default:
                return false
            }
            return true
        }

        /// A lowered function type after its `I` (FUNC-ATTRIBUTES `_`): escaping, `@isolated(any)`, the
        /// callee convention, a representation, `@Sendable`, async, a sending result, then one convention
        /// letter per parameter, result, yield and error result — and pops one type per convention.
        ///
        /// A substituted function type (`@substituted <τ_0_0> () -> @out τ_0_0 for <String>`: the pattern's
        /// operand types, its generic signature, the substitutions in a `y` list, then `Is…`) is still a
        /// pointer and a context: its operands are in the pattern's own generic context, so the node
        /// mentions only the generic parameters of its substitutions.
        mutating func implFunction(start: Int) -> Node? {
            let params: Set<UInt8> = Set("iclbnXxygevpm".utf8)
            let results: Set<UInt8> = Set("roduak".utf8)
            var substitutions: [Node]?
            if next("s") {
                var list: [Node] = []
                while let node = popNode() { list.append(node) }
                guard case .listStart? = stack.last else { return nil }
                stack.removeLast()
                guard case .signature? = stack.last else { return nil }
                stack.removeLast()
                substitutions = list
            }
            guard peek() != UInt8(ascii: "I"), peek() != UInt8(ascii: "P") else { return nil }  // invocation subs
            _ = next("e")  // escaping
            _ = next("A")  // @isolated(any): still a pointer and a context
            guard let callee = peek(), Set("ygxt".utf8).contains(callee) else { return nil }
            index += 1
            var representation: FunctionRepresentation = callee == UInt8(ascii: "t") ? .thin : .thick
            if let mark = peek(), Set("BCMJKW".utf8).contains(mark) {
                if mark == UInt8(ascii: "C") { representation = .thin }  // a C function pointer
                if mark == UInt8(ascii: "B") { representation = .block }
                index += 1
            }
            _ = next("h")  // Sendable
            _ = next("H")  // async: still a function pointer and a context
            _ = next("T")  // sending result
            var operands = 0
            while let letter = peek(), params.contains(letter) {
                operands += 1
                index += 1
                _ = next("w")
            }
            while let letter = peek(), results.contains(letter) {
                operands += 1
                index += 1
                _ = next("w")
            }
            while peek() == UInt8(ascii: "Y"), let letter = peek(1), params.contains(letter) {
                operands += 1
                index += 2
            }
            if peek() == UInt8(ascii: "z"), let letter = peek(1), results.contains(letter) {
                operands += 1
                index += 2
            }
            guard next("_") else { return nil }
            var parts: [Node] = []
            var operandStart = start
            for _ in 0..<operands {
                guard let operand = popNode() else { return nil }
                parts.append(operand)
                operandStart = operand.start
            }
            guard let substitutions else {
                return composite(start: operandStart, parts: parts, shape: .function(representation))
            }
            var node = composite(
                start: operandStart, parts: parts + substitutions, standalone: false, shape: .function(representation))
            node.parameters = substitutions.reduce(into: Set<GenericParameter>()) { $0.formUnion($1.parameters) }
            return node
        }
    }
}

extension MangledName {
    /// The name's bytes, symbolic references included (without the terminating zero).
    var bytes: [UInt8] {
        (0..<length).map { start.load(fromByteOffset: $0, as: UInt8.self) }
    }

    /// Resolves the part `range` of the name (a whole type of it, as ``MangledTypeTree`` splits it) to type
    /// metadata. Symbolic references are relative to their own address, so a part resolves in place.
    func resolve(part range: Range<Int>, context: UnsafeRawPointer?, genericArguments: UnsafeRawPointer?)
        -> UnsafeRawPointer?
    {
        guard !range.isEmpty else { return nil }
        let result = lg_type_by_mangled_name(
            (start + range.lowerBound).assumingMemoryBound(to: CChar.self), range.count, context,
            genericArguments?.assumingMemoryBound(to: UnsafeRawPointer?.self))
        return result.map { UnsafeRawPointer($0) }
    }

    /// Resolves a plain mangled name (no symbolic references) of `length` bytes at `text`.
    static func resolveText(_ text: UnsafeRawPointer, length: Int) -> UnsafeRawPointer? {
        lg_type_by_mangled_name(text.assumingMemoryBound(to: CChar.self), length, nil, nil).map { UnsafeRawPointer($0) }
    }
}
