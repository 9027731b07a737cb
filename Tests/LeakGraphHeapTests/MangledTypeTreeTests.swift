@testable import LeakGraphHeap
import Testing

/// Splitting mangled type names with lowered function types, substitutions and generic parameters. Every
/// accepted name here is one `swift demangle --type` reads as the element types listed (checked with
/// Swift 6.3.1), and every refused one is either invalid for it or outside the parser's grammar.
@Suite("Mangled type trees")
struct MangledTypeTreeTests {
    func parse(_ text: String) -> MangledTypeTree.Node? {
        MangledTypeTree.parse(Array(text.utf8), base: nil)
    }

    func shape(_ node: MangledTypeTree.Node) -> String {
        switch node.shape {
        case .function(.thick): return "thick"
        case .function(.noescape): return "noescape"
        case .function(.thin): return "thin"
        case .function(.block): return "block"
        case .optional(let wrapped):
            if case .function = wrapped.shape { return "optional" }
            return "type"
        case .tuple: return "tuple"
        case .parameter(let parameter): return parameter.text
        case .metatype(_, let thick): return thick ? "thick metatype" : "thin metatype"
        case .storage: return "storage"
        case .nominal, .bound, .other: return "type"
        }
    }

    /// The elements of a parsed top-level tuple: each element's text, label and shape.
    func elements(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        guard let node = parse(text), case .tuple(let elements) = node.shape else { return nil }
        return elements.map { element in
            let part = String(decoding: bytes[element.node.start..<element.node.end], as: UTF8.self)
            return "\(element.label ?? "_"):\(part):\(shape(element.node))"
        }
    }

    @Test("an indirect payload: (name: String, run: @callee_guaranteed () -> (), next: Int)")
    func payload() {
        #expect(elements("SS4name_Ieg_3runSi4nextt") == ["name:SS:type", "run:Ieg_:thick", "next:Si:type"])
    }

    @Test("a substituted function type (a closure stored in a generic enum's indirect payload) is a pointer and a context; it mentions only its substitutions' generic parameters")
    func substitutedFunctions() throws {
        // (@substituted <A where A: ~Copyable, A: ~Escapable> () -> @out A? for <String>, then: String?)
        #expect(elements("xSgRi_zRi0_zlySSIsegr__SSSg4thent") == ["_:xSgRi_zRi0_zlySSIsegr_:thick", "then:SSSg:type"])
        // (String, (@substituted <A …> (@in_guaranteed A) -> @out A for <Int>)?)
        #expect(elements("SS_xxRi_zRi0_zlySiIsegnr_Sgt") == ["_:SS:type", "_:xxRi_zRi0_zlySiIsegnr_Sg:optional"])
        // for <B>: the closure's own τ_0_1, not the pattern's τ_0_0.
        let node = try #require(parse("xSgRi_zRi0_zlyq_Isegr__Sit"))
        guard case .tuple(let elements) = node.shape else {
            Issue.record("not a tuple")
            return
        }
        #expect(elements[0].node.parameters == [GenericParameter(depth: 0, index: 1)])
        // Invocation substitutions, layout constraints and signatures left without a function: not read.
        #expect(parse("xSgRi_zRi0_zlySSIsIegr_") == nil)
        #expect(parse("xSgRlzNlySSIsegr_") == nil)
        #expect(parse("xRi_zl") == nil)
    }

    @Test("a lowered function's parameter and result types belong to it")
    func functionOperands() {
        #expect(elements("Si_SiSbIegyd_t") == ["_:Si:type", "_:SiSbIegyd_:thick"])
        #expect(elements("SaySiG_IegH_t") == ["_:SaySiG:type", "_:IegH_:thick"])
        #expect(elements("4main1PP_p_Ieg_t") == ["_:4main1PP_p:type", "_:Ieg_:thick"])
        #expect(elements("So8NSObjectC_Ieg_t") == ["_:So8NSObjectC:type", "_:Ieg_:thick"])
        #expect(elements("Si_yyc5thunkt") == ["_:Si:type", "thunk:yyc:thick"])
        #expect(elements("yp_Ieg_t") == ["_:yp:type", "_:Ieg_:thick"])
    }

    @Test("formal function types of any signature are a pointer and a context: throwing, typed throws, async, Sendable")
    func formalFunctions() {
        #expect(elements("Si_SSSiKct") == ["_:Si:type", "_:SSSiKc:thick"])
        #expect(shape(parse("yxs5ErrorPYKc")!) == "thick")  // (A) throws(Error) -> ()
        #expect(shape(parse("SixYaYbKc")!) == "thick")  // @Sendable (A) async throws -> Int
        #expect(shape(parse("yxScMYcc")!) == "thick")  // @MainActor (A) -> ()
        #expect(shape(parse("yyXE")!) == "noescape")
        #expect(shape(parse("yyXB")!) == "block")
        #expect(shape(parse("yyXC")!) == "thin")
    }

    @Test("an optional closure in a tuple is an Optional of a lowered function")
    func optionalFunction() {
        #expect(elements("SS4name_Ieg_Sg3runt") == ["name:SS:type", "run:Ieg_Sg:optional"])
        #expect(elements("Si_SS_Ieg_tSgt") == ["_:Si:type", "_:SS_Ieg_tSg:type"])  // an Optional tuple: a type of its own
        #expect(elements("Si_SiSgSgt") == ["_:Si:type", "_:SiSgSg:type"])
    }

    @Test("thin and C function pointers have no context")
    func thinFunctions() {
        #expect(elements("Si_It_t") == ["_:Si:type", "_:It_:thin"])
        #expect(elements("Si_SiIetCy_t") == ["_:Si:type", "_:SiIetCy_:thin"])
    }

    @Test("nested tuples keep their own elements; a one-element tuple has a label")
    func nested() throws {
        let node = try #require(parse("Si_SS_Ieg_tt"))
        guard case .tuple(let outer) = node.shape, outer.count == 2, case .tuple(let inner) = outer[1].node.shape else {
            Issue.record("not a tuple of a tuple: \(node)")
            return
        }
        #expect(inner.count == 2)
        #expect(shape(inner[1].node) == "thick")
        #expect(elements("yt") == [])
        #expect(elements("Si1x_t") == ["x:Si:type"])
        #expect(elements("Si_Sd1aSS1bt") == ["_:Si:type", "a:Sd:type", "b:SS:type"])
    }

    @Test("@isolated(any) functions (a Task's operation) are a pointer and a context, like any thick function")
    func isolatedAny() {
        // The isolation is reached through the context: the value itself is two words.
        #expect(MemoryLayout<@isolated(any) () async -> Void>.size == 16)
        #expect(elements("Si_IeAg_t") == ["_:Si:type", "_:IeAg_:thick"])
    }

    @Test("substitutions repeat earlier types and identifiers; word substitutions spell labels from earlier words")
    func substitutions() {
        // `do(onSuccess:onError:)`: a tuple of optional throwing closures. Substitution 0 is the identifier
        // `Error`, 1 the protocol `Swift.Error` (`AB`); the word table starts with `Error` (`0A5Error`:
        // `ErrorError`) — with a symbolic reference for the protocol, as the compiler emits it, the first
        // word is `on`, and the label reads `onError`.
        #expect(
            elements("Sis5ErrorP_pIegyzo_Sg9onSuccess_AB_pAB_pIeggzo_Sg0A5Errort") == [
                "onSuccess:Sis5ErrorP_pIegyzo_Sg:optional", "ErrorError:AB_pAB_pIeggzo_Sg:optional",
            ])
        // `(main.Foo, main.Foo)`: `AC` is the class (0: `main`, 1: `Foo`, 2: the class).
        let pair = elements("4main3FooC_ACt")
        #expect(pair == ["_:4main3FooC:type", "_:AC:type"])
        let node = parse("4main3FooC_ACt")
        if case .tuple(let elements)? = node?.shape {
            #expect(elements[1].node.resolvable == 0..<10)  // the substitution resolves as the type it repeats
        }
    }

    @Test("generic parameters: x, q_, qd__; bound generic arguments flattened outermost level first")
    func genericParameters() throws {
        let optional = try #require(parse("xIegn_Sg"))
        #expect(shape(optional) == "optional")
        #expect(optional.parameters == [GenericParameter(depth: 0, index: 0)])
        let signal = try #require(parse("4main6SignalCyxq_G"))
        guard case .bound(let nominal, let arguments) = signal.shape else {
            Issue.record("not a bound generic: \(signal)")
            return
        }
        #expect(nominal.isClass)
        #expect(arguments.map(shape) == ["τ_0_0", "τ_0_1"])
        let nested = try #require(parse("4main6SignalCy_xq__qd__G"))
        if case .bound(_, let arguments) = nested.shape {
            #expect(arguments.map(shape) == ["τ_0_0", "τ_0_1", "τ_1_0"])
        } else {
            Issue.record("not a bound generic: \(nested)")
        }
        #expect(shape(parse("4main6SignalCyxGSg")!) == "type")
        #expect(shape(parse("xXMT")!) == "thick metatype")
        #expect(shape(parse("xSgXw")!) == "storage")
        // `@Sendable () -> sending A.AsyncIterator` (async-algorithms' share): an associated type through a
        // standard protocol, then a lowered function with a sending result.
        let iterator = try #require(parse("13AsyncIteratorSciQzIeghTr_"))
        #expect(shape(iterator) == "thick")
        #expect(shape(try #require(parse("7ElementSTQz"))) == "type")
    }

    @Test("what it cannot split exactly it refuses", arguments: [
        "SS_AAt",  // a substitution with nothing to substitute
        "4main3FooC_AAt",  // substitution 0 is an identifier, not a type
        "SSIegyd_",  // too few operands for the conventions
        "Si_Si",  // two types, no tuple
        "S2i_t",  // one element too many for a tuple
        "Si_SS0abct",  // a word substitution with no words yet
        "Si_SSIeAgHJy_t",  // unknown attribute order
        "xQz",  // an associated type
        "",
    ])
    func refusals(_ text: String) {
        #expect(parse(text) == nil)
    }
}
