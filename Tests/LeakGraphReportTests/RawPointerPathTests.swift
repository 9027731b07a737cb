import Foundation
import LeakGraphModel
import Testing

// The path steps of raw pointers the holder scan proved (docs/how-it-works.md, "Raw pointers"): how they
// read, what is derived from them, and their JSON.

@Suite("Raw pointer path steps")
struct RawPointerPathTests {
    @Test("a word in a stored property, one past the declared fields, one in malloc'd memory the object owns")
    func text() {
        let field: ReferencePath = [.rawPointer(field: "context", offset: 24)]
        #expect(field.text == "context (raw pointer)")
        #expect(field.genericText == field.text)
        #expect(field.propertyName == "context")
        #expect(field.weakCandidate == nil)  // an UnsafeRawPointer cannot be made weak
        #expect(field.isRawPointer)
        #expect(!field.isClosure)

        let offset: ReferencePath = [.rawPointer(field: nil, offset: 144)]
        #expect(offset.text == "+144 (raw pointer)")
        #expect(offset.propertyName.isEmpty)

        let memory: ReferencePath = [.ownedMemoryPointer(field: "registration", offset: 16)]
        #expect(memory.text == "registration (malloc'd memory, raw pointer)")
        #expect(memory.propertyName == "registration")
        #expect(memory.isRawPointer)
        #expect(!ReferencePath([.property("next")]).isRawPointer)
    }

    @Test("the steps survive a JSON round trip: kind, the field when there is one, and the offset")
    func json() throws {
        let path: ReferencePath = [
            .rawPointer(field: "context", offset: 24), .rawPointer(field: nil, offset: 8), .ownedMemoryPointer(field: nil, offset: 40),
        ]
        let data = try JSONEncoder().encode(path)
        let text = String(decoding: data, as: UTF8.self)
        for kind in ["rawPointer", "ownedMemoryPointer"] {
            #expect(text.contains("\"\(kind)\""), "\(text)")
        }
        #expect(try JSONDecoder().decode(ReferencePath.self, from: data) == path)
    }
}
