@testable import LeakGraphHeap
import Testing

/// Splitting mangled tuple types with lowered function types (issue 12, item 3). Every accepted name here
/// is one `swift demangle --type` reads as the element types listed.
@Suite("Lowered type names")
struct LoweredTypeNameTests {
    /// The elements of a parsed top-level tuple: each element's text, label and shape.
    func elements(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        guard let node = LoweredTypeName.parse(bytes), case .tuple(let elements) = node.shape else { return nil }
        return elements.map { element in
            let part = String(decoding: bytes[element.node.start..<element.node.end], as: UTF8.self)
            let shape: String
            switch element.node.shape {
            case .function(.thick): shape = "thick"
            case .function(.thin): shape = "thin"
            case .optionalFunction: shape = "optional"
            case .tuple: shape = "tuple"
            case .other: shape = "type"
            }
            return "\(element.label ?? "_"):\(part):\(shape)"
        }
    }

    @Test("an indirect payload: (name: String, run: @callee_guaranteed () -> (), next: Int)")
    func payload() {
        #expect(elements("SS4name_Ieg_3runSi4nextt") == ["name:SS:type", "run:Ieg_:thick", "next:Si:type"])
    }

    @Test("a lowered function's parameter and result types belong to it")
    func functionOperands() {
        #expect(elements("Si_SiSbIegyd_t") == ["_:Si:type", "_:SiSbIegyd_:thick"])
        #expect(elements("SaySiG_IegH_t") == ["_:SaySiG:type", "_:IegH_:thick"])
        #expect(elements("4main1PP_p_Ieg_t") == ["_:4main1PP_p:type", "_:Ieg_:thick"])
        #expect(elements("So8NSObjectC_Ieg_t") == ["_:So8NSObjectC:type", "_:Ieg_:thick"])
        #expect(elements("Si_yyc5thunkt") == ["_:Si:type", "thunk:yyc:type"])
    }

    @Test("an optional closure in a tuple is an Optional of a lowered function")
    func optionalFunction() {
        #expect(elements("SS4name_Ieg_Sg3runt") == ["name:SS:type", "run:Ieg_Sg:optional"])
        #expect(LoweredTypeName.parse(Array("Si_SS_Ieg_tSgt".utf8)) == nil)  // an Optional tuple: refused
    }

    @Test("thin and C function pointers have no context")
    func thinFunctions() {
        #expect(elements("Si_It_t") == ["_:Si:type", "_:It_:thin"])
        #expect(elements("Si_SiIetCy_t") == ["_:Si:type", "_:SiIetCy_:thin"])
    }

    @Test("nested tuples keep their own elements")
    func nested() throws {
        let bytes = Array("Si_SS_Ieg_tt".utf8)
        let node = try #require(LoweredTypeName.parse(bytes))
        guard case .tuple(let outer) = node.shape, outer.count == 2, case .tuple(let inner) = outer[1].node.shape else {
            Issue.record("not a tuple of a tuple: \(node)")
            return
        }
        #expect(inner.count == 2)
        if case .function(.thick) = inner[1].node.shape {} else { Issue.record("inner[1] is not a thick function") }
        #expect(elements("yt") == [])
    }

    @Test("@isolated(any) functions (a Task's operation) are a pointer and a context, like any thick function")
    func isolatedAny() throws {
        // The isolation is reached through the context: the value itself is two words.
        #expect(MemoryLayout<@isolated(any) () async -> Void>.size == 16)
        let node = try #require(LoweredTypeName.parse(Array("Si_IeAg_t".utf8)))
        guard case .tuple(let elements) = node.shape, elements.count == 2 else {
            Issue.record("not a tuple of two: \(node)")
            return
        }
        if case .function(.thick) = elements[1].node.shape {} else { Issue.record("element 1 is not a thick function") }
    }

    @Test("what it cannot split exactly it refuses", arguments: [
        "SS_AAt",  // a substitution
        "SSIegyd_",  // too few operands for the conventions
        "Si_Si",  // two types, no tuple
        "Si_SS0abct",  // a word-substituted identifier
        "Si_SSSiKct",  // a throwing formal function
        "",
    ])
    func refusals(_ text: String) {
        #expect(LoweredTypeName.parse(Array(text.utf8)) == nil)
    }
}
