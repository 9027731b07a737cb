import CLeakGraphMetadata

/// The structure of a mangled type name that the runtime cannot build metadata for because it contains
/// lowered (SIL) function types — `(name: String, run: @callee_guaranteed () -> (), next: Step)`, the
/// type of an `indirect` payload's box or of a captured tuple, mangled `SS4name_Ieg_3run<ref>4nextt`.
///
/// The mangling is postfix (docs/ABI/Mangling.rst): operands come first, an operator closes them. This
/// parser runs it on a stack and keeps only what a layout needs: where each tuple element's type starts
/// and ends in the name (so a part without function types is resolved by the runtime on its own), its
/// label, and which parts are function values. It accepts a deliberately small part of the grammar —
/// symbolic references, standard types, nominal types, bound generics, `Optional` sugar, metatypes,
/// existentials, tuples, formal and lowered function types with plain conventions (and `@isolated(any)`,
/// whose values are 16 bytes too) — and returns `nil` for anything else (substitutions, generic
/// signatures, word-substituted identifiers, coroutines…), so a name it cannot split exactly is never laid
/// out by guesswork.
struct LoweredTypeName {
    /// One type within the name: bytes `start ..< end` of the name.
    struct Node {
        var start: Int
        var end: Int
        var shape: Shape
    }

    /// What a layout needs to know about a type.
    indirect enum Shape {
        /// A lowered function value: thick (function pointer and a strong context) or thin (a pointer).
        case function(MangledName.ImplFunctionRepresentation)
        /// An `Optional` of a lowered function value (`nil` is a null function pointer).
        case optionalFunction(MangledName.ImplFunctionRepresentation)
        /// A tuple and its elements, in order.
        case tuple([Element])
        /// Any other type: its bytes form a name the runtime can resolve on its own.
        case other
    }

    /// One tuple element: its type and its label, if it has one.
    struct Element {
        var node: Node
        var label: String?
    }

    private enum Item {
        case node(Node)
        case identifier(start: Int, text: String)
        case listStart(Int)  // `y`: an empty list, or the start of a bound generic's arguments
        case separator  // `_`: after a list's first element
    }

    /// Parses `bytes` (a whole mangled type name, symbolic references included) into its one type.
    static func parse(_ bytes: [UInt8]) -> Node? {
        var parser = Parser(bytes: bytes)
        return parser.run()
    }

    /// Parses `bytes` as a sequence of whole types, one after another (a key path's index types in its
    /// argument thunk's name, `7Fixture5StoreCSi`), into their nodes in order.
    static func parseSequence(_ bytes: [UInt8]) -> [Node]? {
        var parser = Parser(bytes: bytes)
        return parser.runSequence()
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var stack: [Item] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        func peek(_ offset: Int = 0) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func popNode() -> Node? {
            guard case .node(let node)? = stack.popLast() else { return nil }
            return node
        }

        /// Pops a context (module identifier or type) and returns where it starts.
        mutating func popContextStart() -> Int? {
            switch stack.popLast() {
            case .node(let node)?: return node.start
            case .identifier(let start, _)?: return start
            default: return nil
            }
        }

        /// Pops `(type, label?)` pairs back to a separator, then one more: a tuple's elements in order
        /// (the first element of a list is followed by `_`).
        mutating func popElements() -> [Element]? {
            var elements: [Element] = []
            var reachedFirst = false
            while true {
                if case .separator? = stack.last {
                    guard !reachedFirst, !elements.isEmpty else { return nil }
                    stack.removeLast()
                    reachedFirst = true
                }
                var label: String?
                if case .identifier(_, let text)? = stack.last {
                    label = text
                    stack.removeLast()
                }
                guard let node = popNode() else { return nil }
                elements.append(Element(node: node, label: label))
                if reachedFirst { return elements.reversed() }
            }
        }

        mutating func run() -> Node? {
            while let byte = peek() {
                let start = index
                switch byte {
                case 0x01...0x17:
                    guard index + 5 <= bytes.count else { return nil }
                    index += 5
                    stack.append(.node(Node(start: start, end: index, shape: .other)))
                case 0x18...0x1F:
                    guard index + 9 <= bytes.count else { return nil }
                    index += 9
                    stack.append(.node(Node(start: start, end: index, shape: .other)))
                case UInt8(ascii: "1")...UInt8(ascii: "9"):
                    var length = 0
                    while let digit = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) {
                        length = length * 10 + Int(digit - UInt8(ascii: "0"))
                        index += 1
                        guard length < 4096 else { return nil }
                    }
                    guard index + length <= bytes.count else { return nil }
                    let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
                    index += length
                    stack.append(.identifier(start: start, text: text))
                case UInt8(ascii: "S"):
                    guard let kind = peek(1), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(kind)
                        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(kind)
                    else { return nil }
                    index += 2
                    if kind == UInt8(ascii: "g") {
                        // `Optional` sugar of the type before it.
                        guard let wrapped = popNode() else { return nil }
                        let shape: Shape
                        switch wrapped.shape {
                        case .function(let representation): shape = .optionalFunction(representation)
                        case .optionalFunction, .tuple: return nil  // `Optional` of a type it must lay out itself
                        case .other: shape = .other
                        }
                        stack.append(.node(Node(start: wrapped.start, end: index, shape: shape)))
                    } else {
                        stack.append(.node(Node(start: start, end: index, shape: .other)))
                    }
                case UInt8(ascii: "s"):
                    index += 1
                    stack.append(.node(Node(start: start, end: index, shape: .other)))  // the Swift module
                case UInt8(ascii: "y"):
                    index += 1
                    stack.append(.listStart(start))
                case UInt8(ascii: "_"):
                    index += 1
                    stack.append(.separator)
                case UInt8(ascii: "C"), UInt8(ascii: "V"), UInt8(ascii: "O"), UInt8(ascii: "P"):
                    index += 1
                    guard case .identifier? = stack.popLast(), let contextStart = popContextStart() else { return nil }
                    stack.append(.node(Node(start: contextStart, end: index, shape: .other)))
                case UInt8(ascii: "G"):
                    index += 1
                    // base `y` arguments (with `_` separators) `G`
                    while let top = stack.last {
                        if case .listStart = top { break }
                        guard case .node = top else {
                            guard case .separator = top else { return nil }
                            stack.removeLast()
                            continue
                        }
                        stack.removeLast()
                    }
                    guard case .listStart? = stack.popLast(), let base = popNode() else { return nil }
                    stack.append(.node(Node(start: base.start, end: index, shape: .other)))
                case UInt8(ascii: "t"):
                    index += 1
                    if case .listStart(let listStart)? = stack.last {
                        stack.removeLast()
                        stack.append(.node(Node(start: listStart, end: index, shape: .tuple([]))))
                    } else {
                        guard let elements = popElements(), let first = elements.first else { return nil }
                        stack.append(.node(Node(start: first.node.start, end: index, shape: .tuple(elements))))
                    }
                case UInt8(ascii: "c"):
                    // A formal function type: result, then parameters (either may be an empty list `y`).
                    index += 1
                    var operandStart = start
                    for _ in 0..<2 {
                        switch stack.popLast() {
                        case .node(let node)?: operandStart = node.start
                        case .listStart(let listStart)?: operandStart = listStart
                        default: return nil
                        }
                    }
                    stack.append(.node(Node(start: operandStart, end: index, shape: .other)))
                case UInt8(ascii: "m"):
                    index += 1
                    guard let instance = popNode() else { return nil }
                    stack.append(.node(Node(start: instance.start, end: index, shape: .other)))
                case UInt8(ascii: "p"):
                    // An existential: `y p` (Any) or protocols `P1 _ P2 … p`.
                    index += 1
                    guard let listStart = popProtocolList() else { return nil }
                    stack.append(.node(Node(start: listStart, end: index, shape: .other)))
                case UInt8(ascii: "X"):
                    guard peek(1) == UInt8(ascii: "l") else { return nil }  // `AnyObject`-bound composition
                    index += 2
                    guard let listStart = popProtocolList() else { return nil }
                    stack.append(.node(Node(start: listStart, end: index, shape: .other)))
                case UInt8(ascii: "I"):
                    index += 1
                    guard let function = implFunction(start: start) else { return nil }
                    stack.append(.node(function))
                default:
                    return nil
                }
            }
            guard stack.count == 1, case .node(let node) = stack[0], node.start == 0, node.end == bytes.count else {
                return nil
            }
            return node
        }

        /// Like ``run()``, for names that are several whole types in a row.
        mutating func runSequence() -> [Node]? {
            guard !bytes.isEmpty else { return nil }
            if let single = run() { return [single] }
            var nodes: [Node] = []
            for item in stack {
                guard case .node(let node) = item, node.start == (nodes.last?.end ?? 0) else { return nil }
                nodes.append(node)
            }
            return index == bytes.count && nodes.last?.end == bytes.count ? nodes : nil
        }

        /// Pops an existential's protocol list (`y`, or `P1 _ P2 …`) and returns where it starts.
        mutating func popProtocolList() -> Int? {
            if case .listStart(let start)? = stack.last {
                stack.removeLast()
                return start
            }
            while case .node? = stack.last { stack.removeLast() }
            guard case .separator? = stack.popLast(), case .node(let first)? = stack.popLast() else { return nil }
            return first.start
        }

        /// Parses a lowered function type's attributes after its `I` (FUNC-ATTRIBUTES `_`) and pops its
        /// parameter and result types: one per convention letter.
        mutating func implFunction(start: Int) -> Node? {
            let params: Set<UInt8> = Set("iclbnXxygevpm".utf8)
            let results: Set<UInt8> = Set("roduak".utf8)
            if peek() == UInt8(ascii: "e") { index += 1 }  // escaping
            if peek() == UInt8(ascii: "A") { index += 1 }  // @isolated(any): still a pointer and a context
            guard let callee = peek(), Set("ygxt".utf8).contains(callee) else { return nil }
            index += 1
            var representation: MangledName.ImplFunctionRepresentation = callee == UInt8(ascii: "t") ? .thin : .thick
            if let mark = peek(), Set("CMJKW".utf8).contains(mark) {
                if mark == UInt8(ascii: "C") { representation = .thin }  // a C function pointer
                index += 1
            }
            if peek() == UInt8(ascii: "h") { index += 1 }  // Sendable
            if peek() == UInt8(ascii: "H") { index += 1 }  // async: still a function pointer and a context
            if peek() == UInt8(ascii: "T") { index += 1 }  // sending result
            var operands = 0
            while let letter = peek(), params.contains(letter) {
                operands += 1
                index += 1
            }
            while let letter = peek(), results.contains(letter) {
                operands += 1
                index += 1
            }
            while peek() == UInt8(ascii: "Y"), let letter = peek(1), params.contains(letter) {
                operands += 1
                index += 2
            }
            if peek() == UInt8(ascii: "z"), let letter = peek(1), results.contains(letter) {
                operands += 1
                index += 2
            }
            guard peek() == UInt8(ascii: "_") else { return nil }
            index += 1
            var operandStart = start
            for _ in 0..<operands {
                guard let operand = popNode() else { return nil }
                operandStart = operand.start
            }
            return Node(start: operandStart, end: index, shape: .function(representation))
        }
    }
}

extension MangledName {
    /// The name's bytes, symbolic references included (without the terminating zero).
    var bytes: [UInt8] {
        (0..<length).map { start.load(fromByteOffset: $0, as: UInt8.self) }
    }

    /// Resolves the part `start ..< end` of the name (a whole type of it, as ``LoweredTypeName`` splits
    /// it) to type metadata. Symbolic references are relative to their own address, so a part resolves
    /// in place.
    func resolve(part range: Range<Int>, context: UnsafeRawPointer?, genericArguments: UnsafeRawPointer?) -> UnsafeRawPointer? {
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
