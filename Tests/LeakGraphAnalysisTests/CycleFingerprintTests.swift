import LeakGraphTestSupport
import LeakGraphAnalysis
import LeakGraphModel
import Testing

@Suite("Cycle fingerprints")
struct CycleFingerprintTests {
    /// The fingerprints of a shape's root cycles.
    private func fingerprints(_ shape: ShapeBuilder) -> [String] {
        let graph = shape.leakedGraph
        return LeakAnalysis.analyze(graph).fingerprints()
    }

    /// A delegate cycle, optionally with its nodes in the other order, at other addresses, with a held
    /// object and an extra live object in front.
    private func delegateCycle(swapped: Bool = false, base: UInt64 = 0x1000, extras: Bool = false, delegateLabel: String = "delegate") -> ShapeBuilder {
        var shape = ShapeBuilder()
        if extras { shape.object("App.Unrelated", address: base + 0x900) }
        var controller = 0
        var registry = 0
        if swapped {
            registry = shape.object("FindMyBike.BikeRegistry", address: base + 0x100)
            controller = shape.object("FindMyBike.MainViewController", address: base + 0x200)
        } else {
            controller = shape.object("FindMyBike.MainViewController", address: base + 0x300)
            registry = shape.object("FindMyBike.BikeRegistry", address: base + 0x400)
        }
        if extras {
            let bike = shape.object("FindMyBike.Bike", address: base + 0x500)
            shape.ref(registry, bike, "bikes")
        }
        shape.ref(controller, registry, "registry")
        shape.ref(registry, controller, delegateLabel)
        return shape
    }

    @Test("FNV-1a 64 matches the published test vectors")
    func fnvVectors() {
        #expect(CycleFingerprint.fnv1a64("".utf8) == 0xcbf2_9ce4_8422_2325)
        #expect(CycleFingerprint.fnv1a64("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(CycleFingerprint.fnv1a64("foobar".utf8) == 0x8594_4171_f739_67e8)
    }

    @Test("the fingerprint is 16 lowercase hex digits")
    func format() throws {
        let fingerprint = try #require(fingerprints(delegateCycle()).first)
        #expect(fingerprint.count == 16)
        #expect(fingerprint.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test("same shape at other addresses, in another node order, with held and unrelated objects: same fingerprint")
    func sameShape() {
        let reference = fingerprints(delegateCycle())
        #expect(reference.count == 1)
        #expect(fingerprints(delegateCycle(swapped: true)) == reference)
        #expect(fingerprints(delegateCycle(base: 0x7f00_0000_0000)) == reference)
        #expect(fingerprints(delegateCycle(swapped: true, base: 0x5555_0000, extras: true)) == reference)
    }

    @Test("another label or another type: another fingerprint")
    func differentShape() {
        let reference = fingerprints(delegateCycle())
        #expect(fingerprints(delegateCycle(delegateLabel: "listener")) != reference)
        var renamed = ShapeBuilder()
        let controller = renamed.object("FindMyBike.MapViewController")
        let registry = renamed.object("FindMyBike.BikeRegistry")
        renamed.ref(controller, registry, "registry")
        renamed.ref(registry, controller, "delegate")
        #expect(fingerprints(renamed) != reference)
    }

    @Test("the edge's direction matters: A.x → B differs from B.x → A")
    func direction() {
        var forward = ShapeBuilder()
        var a = forward.object("App.A")
        var b = forward.object("App.B")
        forward.ref(a, b, "x")
        forward.ref(b, a, "y")
        var backward = ShapeBuilder()
        a = backward.object("App.A")
        b = backward.object("App.B")
        backward.ref(b, a, "x")
        backward.ref(a, b, "y")
        #expect(fingerprints(forward) != fingerprints(backward))
    }

    @Test("rings of 10 and 12 objects of one type share a fingerprint; a ring of another type does not")
    func ringLength() {
        func ring(_ count: Int, _ type: String) -> ShapeBuilder {
            var shape = ShapeBuilder()
            for _ in 0 ..< count { shape.object(type) }
            for index in 0 ..< count { shape.ref(index, (index + 1) % count, "next") }
            return shape
        }
        #expect(fingerprints(ring(10, "LinkedRing.DummyObject")) == fingerprints(ring(12, "LinkedRing.DummyObject")))
        #expect(fingerprints(ring(10, "LinkedRing.DummyObject")) != fingerprints(ring(10, "LinkedRing.Other")))
    }

    @Test("array positions and hash buckets do not count: 3 or 5 children, any bucket")
    func subscriptsNormalized() {
        func family(_ children: Int, bucketBase: Int) -> ShapeBuilder {
            var shape = ShapeBuilder()
            let parent = shape.object("App.Parent")
            let storage = shape.object("Swift._DictionaryStorage<Swift.Int, App.Child>", .dictionaryStorage)
            shape.ref(parent, storage, "children")
            for index in 0 ..< children {
                let child = shape.object("App.Child")
                shape.ref(storage, child, "[\(bucketBase + 7 * index)]")
                shape.ref(child, parent, "parent")
            }
            return shape
        }
        #expect(fingerprints(family(3, bucketBase: 1)) == fingerprints(family(5, bucketBase: 40)))
        #expect(ReferencePath([.dictionaryValue(DictionaryKey(kind: .integer, text: "17"))]).genericText == "[*]")
        #expect(ReferencePath([.dictionaryValue(DictionaryKey(kind: .string, text: "\"a1\""))]).genericText == "[\"a1\"]")
        #expect(ReferencePath([.element(3), .property("parent")]).genericText == "[*].parent")
        #expect(ReferencePath([.capture(0), .captureBox]).genericText == "capture[*] (box)")
        #expect(ReferencePath([.property("state"), .enumCase("connected"), .tupleElement("0")]).genericText == "state (.connected).0")
    }

    @Test("weak references and references to held objects do not count")
    func onlyInternalStrongReferences() {
        let reference = fingerprints(delegateCycle())
        var shape = delegateCycle()
        let held = shape.object("App.Held")
        shape.ref(0, held, "cache")
        shape.ref(1, 0, "observer", .weak)
        #expect(fingerprints(shape) == reference)
    }

    @Test("the hashed text is the header and the sorted distinct lines")
    func canonicalText() {
        let edges = [
            CycleFingerprint.Edge(sourceType: "B", path: path("[1]"), targetType: "A"),
            CycleFingerprint.Edge(sourceType: "A", path: path("next"), targetType: "B"),
            CycleFingerprint.Edge(sourceType: "B", path: path("[2]"), targetType: "A"),
        ]
        #expect(CycleFingerprint.canonicalText(of: edges) == "leakgraph-cycle-fingerprint-1\nA\tnext\tB\nB\t[*]\tA\n")
        #expect(CycleFingerprint.fingerprint(of: edges) == CycleFingerprint.fingerprint(of: edges.reversed()))
    }

    @Test("the fingerprint of a fixed shape never changes (value computed independently)")
    func pinned() {
        let edges = [
            CycleFingerprint.Edge(sourceType: "LinkedRing.DummyObject", path: path("next"), targetType: "LinkedRing.DummyObject")
        ]
        #expect(CycleFingerprint.canonicalText(of: edges) == "leakgraph-cycle-fingerprint-1\nLinkedRing.DummyObject\tnext\tLinkedRing.DummyObject\n")
        // FNV-1a 64 of that text, computed outside Swift: a fingerprint stored in a baseline must stay valid.
        #expect(CycleFingerprint.fingerprint(of: edges) == "43a685ad0b19f2ad")
    }
}
