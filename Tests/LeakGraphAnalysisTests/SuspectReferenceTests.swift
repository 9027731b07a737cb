import LeakGraphTestSupport
import LeakGraphAnalysis
import LeakGraphModel
import Testing

/// Builds leaked shapes with any node kind, fixed addresses (`0x1000 + 0x40 × index`) and retain counts
/// that are set from the strong references when the graph is finished, so every shape is a proven leak.
struct ShapeBuilder {
    private(set) var graph = ObjectGraph()

    /// The graph being built, for edits the other methods do not offer.
    var graphForEditing: ObjectGraph {
        get { graph }
        set { graph = newValue }
    }

    /// Adds an object and returns its index.
    @discardableResult
    mutating func object(_ type: String, _ kind: ObjectKind = .class, address: UInt64? = nil) -> Int {
        let index = graph.nodes.count
        return graph.addNode(
            ObjectNode(address: address ?? 0x1000 + 0x40 * UInt64(index), typeName: type, kind: kind, size: 32, retainCount: 0)
        )
    }

    /// Adds a reference (strong unless told).
    mutating func ref(_ from: Int, _ to: Int, _ label: String, _ ownership: Ownership = .strong) {
        graph.addReference(from: from, to: to, path: path(label), ownership: ownership)
    }

    mutating func ref(_ from: Int, _ to: Int, path: ReferencePath) {
        graph.addReference(from: from, to: to, path: path)
    }

    /// The graph with every retain count equal to its strong in-degree: nothing is held from outside.
    var leakedGraph: ObjectGraph {
        var result = graph
        for reference in graph.references where reference.ownership == .strong {
            result.nodes[reference.to].retainCount += 1
        }
        return result
    }

    /// The analysis of ``leakedGraph`` and its suspects.
    func suspects() -> (analysis: LeakAnalysis, suspects: [SuspectReference?]) {
        let graph = leakedGraph
        let analysis = LeakAnalysis.analyze(graph)
        return (analysis, analysis.suspectReferences())
    }
}

@Suite("Suspect references")
struct SuspectReferenceTests {
    /// The only suspect of a shape that must form exactly one root cycle.
    private func onlySuspect(_ shape: ShapeBuilder, sourceLocation: SourceLocation = #_sourceLocation) throws -> SuspectReference {
        let (analysis, suspects) = shape.suspects()
        try #require(analysis.rootCycles.count == 1, sourceLocation: sourceLocation)
        let suspect = try #require(suspects.first ?? nil, sourceLocation: sourceLocation)
        #expect(suspect.cycle == 0, sourceLocation: sourceLocation)
        #expect(shape.graph.references[suspect.reference].ownership == .strong, sourceLocation: sourceLocation)
        #expect(shape.graph.references[suspect.reference].label == suspect.label, sourceLocation: sourceLocation)
        #expect(shape.graph.references[suspect.reference].from == suspect.from, sourceLocation: sourceLocation)
        #expect(shape.graph.references[suspect.reference].to == suspect.to, sourceLocation: sourceLocation)
        return suspect
    }

    @Test("a delegate cycle: the delegate reference, whichever object comes first")
    func delegateCycle() throws {
        for registryFirst in [false, true] {
            var shape = ShapeBuilder()
            let registry: Int
            let controller: Int
            if registryFirst {
                registry = shape.object("FindMyBike.BikeRegistry")
                controller = shape.object("FindMyBike.MainViewController")
            } else {
                controller = shape.object("FindMyBike.MainViewController")
                registry = shape.object("FindMyBike.BikeRegistry")
            }
            shape.ref(controller, registry, "registry")
            shape.ref(registry, controller, "delegate")
            let suspect = try onlySuspect(shape)
            #expect(suspect.from == registry && suspect.to == controller && suspect.label == "delegate")
            #expect(suspect.rule == .backReferenceName)
            #expect(suspect.hint == "make it `weak var delegate`")
            #expect(suspect.reason.contains("`delegate`"))
        }
    }

    @Test(
        "names read as back-references by their camelCase words",
        arguments: [
            ("bikeChangedDelegate", "bikeChangedDelegate"), ("dataSource", "dataSource"), ("parentNode", "parentNode"),
            ("meta.owner", "owner"), ("[2].listener", "listener"), ("weak_owner", "weak_owner"),
        ]
    )
    func backReferenceNames(label: String, property: String) throws {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        shape.ref(a, b, "items")
        shape.ref(b, a, label)
        let suspect = try onlySuspect(shape)
        #expect(suspect.label == label)
        #expect(suspect.rule == .backReferenceName)
        #expect(suspect.hint == "make it `weak var \(property)`")
    }

    @Test(
        "the fix says `weak var` only where that declaration holds the reference",
        arguments: [
            // A struct with one class field inside an Optional: the field, not the Optional property.
            (ReferencePath([.property("t"), .optionalPayload, .property("parent")]), "make it `weak var parent`"),
            (ReferencePath([.property("owner"), .optionalPayload]), "make it `weak var owner`"),
            (
                ReferencePath([.property("state"), .enumCase("connected"), .tupleElement("owner")]),
                "hold the reference weakly: `owner` cannot be `weak` where it is (state (.connected).owner); "
                    + "store it in a `weak var`, or clear it when done"
            ),
            (
                ReferencePath([.property("observer"), .existentialValue(type: "App.Observer")]),
                "hold the reference weakly: `observer` cannot be `weak` where it is (observer (App.Observer)); "
                    + "store it in a `weak var`, or clear it when done"
            ),
            (
                ReferencePath([.property("cellDelegate"), .storage]),
                "keep weak references in `cellDelegate` (e.g. elements wrapping a `weak var`), or remove them when done"
            ),
        ]
    )
    func hintsThatCompile(path: ReferencePath, hint: String) throws {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        shape.ref(a, b, "items")
        shape.ref(b, a, path: path)
        let suspect = try onlySuspect(shape)
        #expect(suspect.rule == .backReferenceName)
        #expect(suspect.path == path)
        #expect(suspect.hint == hint)
    }

    @Test("names that are not back-references fall through to the closing reference", arguments: ["next", "targets", "model", "delegated", "sourceData"])
    func notBackReferences(label: String) throws {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        shape.ref(a, b, "items")
        shape.ref(b, a, label)
        let suspect = try onlySuspect(shape)
        #expect(suspect.rule == .closingReference)
        // Into the lowest node (a) from the highest referencing it (b).
        #expect(suspect.from == b && suspect.to == a && suspect.label == label)
    }

    @Test("a more telling back-reference word wins: delegate before parent before controller")
    func backReferencePriority() throws {
        var shape = ShapeBuilder()
        let view = shape.object("App.View")
        let controller = shape.object("App.Controller")
        let model = shape.object("App.Model")
        shape.ref(view, controller, "controller")
        shape.ref(controller, model, "parent")
        shape.ref(model, view, "delegate")
        #expect(try onlySuspect(shape).label == "delegate")
    }

    @Test("a closure whose only capture is its holder: the self-loop `handler (closure)`")
    func closureSelfLoop() throws {
        var shape = ShapeBuilder()
        let button = shape.object("App.Button")
        shape.ref(button, button, "handler (closure)")
        let suspect = try onlySuspect(shape)
        #expect(suspect.from == button && suspect.to == button)
        #expect(suspect.rule == .closureCapturingHolder)
        // Where the closure was formed is not recorded (its context is the Button itself): both fixes, each
        // with where it compiles.
        #expect(
            suspect.hint == "capture the `Button` weakly: `{ [weak self] in … }` in a method of `Button`, a `weak` "
                + "capture-list entry elsewhere, or clear `handler` when done")
        #expect(suspect.reason.contains("`handler`") && suspect.reason.contains("its context is the object itself"))
    }

    @Test("a closure context capturing its holder: the closure reference, not the capture")
    func closureContextCapturingHolder() throws {
        var shape = ShapeBuilder()
        let screen = shape.object("App.Screen")
        let context = shape.object("(closure context, 2 captures)", .closureContext)
        let theme = shape.object("App.Theme")
        shape.ref(screen, context, "render (closure)")
        shape.ref(context, screen, "capture[0]")
        shape.ref(context, theme, "capture[1]")
        let suspect = try onlySuspect(shape)
        #expect(suspect.from == screen && suspect.to == context && suspect.label == "render (closure)")
        #expect(suspect.rule == .closureCapturingHolder)
        #expect(suspect.reason == "the closure stored in `render` captures the object that holds it")
    }

    @Test("a closure leading back through a captured var's box")
    func closureThroughBox() throws {
        var shape = ShapeBuilder()
        let session = shape.object("App.Session")
        let context = shape.object("(closure context, 1 capture)", .closureContext)
        let box = shape.object("(box of App.Session)", .box)
        shape.ref(session, context, "onMessage (closure)")
        shape.ref(context, box, "capture[0] (box)")
        shape.ref(box, session, "value")
        let suspect = try onlySuspect(shape)
        #expect(suspect.label == "onMessage (closure)")
        #expect(suspect.reason.contains("leads back, through what it captures"))
    }

    @Test("a back-reference name wins over a closure (rule order)")
    func nameBeforeClosure() throws {
        var shape = ShapeBuilder()
        let owner = shape.object("App.Owner")
        let worker = shape.object("App.Worker")
        shape.ref(owner, owner, "callback (closure)")
        shape.ref(owner, worker, "worker")
        shape.ref(worker, owner, "owner")
        #expect(try onlySuspect(shape).rule == .backReferenceName)
    }

    @Test("parent ⇄ children through array storage: the child's reference back to the parent")
    func parentChildrenArray() throws {
        for (label, rule) in [("parent", SuspectReference.Rule.backReferenceName), ("folder", .referenceToContainer)] {
            var shape = ShapeBuilder()
            let parent = shape.object("App.Folder")
            let storage = shape.object("Swift._ContiguousArrayStorage<App.File>", .arrayStorage)
            let children = (0 ..< 3).map { _ in shape.object("App.File") }
            shape.ref(parent, storage, "files")
            for (index, child) in children.enumerated() {
                shape.ref(storage, child, "[\(index)]")
                shape.ref(child, parent, label)
            }
            let suspect = try onlySuspect(shape)
            #expect(suspect.rule == rule, "\(label)")
            #expect(suspect.label == label && suspect.to == parent && suspect.from == children[0])
            #expect(suspect.hint == "make it `weak var \(label)`")
            if rule == .referenceToContainer {
                #expect(suspect.reason == "it points back to the object that keeps this one in `files`")
            }
        }
    }

    @Test("cache ⇄ entries through dictionary values: the entry's reference to the cache")
    func dictionaryContainer() throws {
        var shape = ShapeBuilder()
        let cache = shape.object("App.Cache")
        let storage = shape.object("Swift._DictionaryStorage<Swift.String, App.Entry>", .dictionaryStorage)
        let entry = shape.object("App.Entry")
        shape.ref(cache, storage, "entries")
        shape.ref(storage, entry, "value[5]")
        shape.ref(entry, cache, "store")
        let suspect = try onlySuspect(shape)
        #expect(suspect.rule == .referenceToContainer)
        #expect(suspect.label == "store" && suspect.from == entry)
    }

    @Test("an object referencing itself through a stored property")
    func selfReference() throws {
        var shape = ShapeBuilder()
        let node = shape.object("App.Node")
        shape.ref(node, node, "me")
        let suspect = try onlySuspect(shape)
        #expect(suspect.rule == .selfReference)
        #expect(suspect.hint == "break the self-reference: set `me` to nil when done, or make it `weak var me`")
    }

    @Test("a plain ring: the reference into the lowest node from the highest, the same every time")
    func plainRing() throws {
        var shape = ShapeBuilder()
        let ring = (0 ..< 10).map { _ in shape.object("LinkedRing.DummyObject") }
        // Added in a scrambled order, so the choice cannot come from reference order.
        for index in [3, 7, 0, 9, 1, 5, 2, 8, 4, 6] {
            shape.ref(ring[index], ring[(index + 1) % 10], "next")
        }
        let first = try onlySuspect(shape)
        #expect(first.rule == .closingReference)
        #expect(first.from == ring[9] && first.to == ring[0] && first.label == "next")
        #expect(first.hint == "break the ring here: make it `weak var next`, or set `next` to nil when the objects are done")
        #expect(try onlySuspect(shape) == first)
    }

    @Test("two references into the lowest node: the one from the highest node")
    func closingReferenceTieBreak() throws {
        var shape = ShapeBuilder()
        let nodes = (0 ..< 4).map { _ in shape.object("App.Node") }
        shape.ref(nodes[0], nodes[1], "a")
        shape.ref(nodes[1], nodes[2], "b")
        shape.ref(nodes[2], nodes[0], "c")
        shape.ref(nodes[2], nodes[3], "d")
        shape.ref(nodes[3], nodes[0], "e")
        let suspect = try onlySuspect(shape)
        #expect(suspect.from == nodes[3] && suspect.label == "e")
    }

    @Test("a weak, unowned or unmanaged reference is never the suspect, even named like a delegate", arguments: [Ownership.weak, .unowned, .unmanaged])
    func weakNeverPicked(_ ownership: Ownership) throws {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        shape.ref(a, b, "next")
        shape.ref(b, a, "link")
        shape.ref(b, a, "delegate", ownership)
        shape.ref(a, a, "handler (closure)", ownership)
        let suspect = try onlySuspect(shape)
        #expect(suspect.label == "link")
        #expect(suspect.rule == .closingReference)
    }

    @Test("a reference to a held object is never the suspect")
    func heldObjectNeverPicked() throws {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        let held = shape.object("App.Held")
        shape.ref(a, b, "next")
        shape.ref(b, a, "next")
        shape.ref(b, held, "delegate")
        #expect(try onlySuspect(shape).label == "next")
    }

    @Test("one suspect per root cycle, each inside its own cycle")
    func severalCycles() {
        var shape = ShapeBuilder()
        let a = shape.object("App.A")
        let b = shape.object("App.B")
        let c = shape.object("App.C")
        shape.ref(a, b, "b")
        shape.ref(b, a, "owner")
        shape.ref(c, c, "handler (closure)")
        let (analysis, suspects) = shape.suspects()
        #expect(analysis.rootCycles.count == 2)
        #expect(suspects.map { $0?.label } == ["owner", "handler (closure)"])
        #expect(suspects.map { $0?.cycle } == [0, 1])
    }

    @Test("a ring of 100,000 objects gets its closing reference quickly and without recursion")
    func largeRing() throws {
        var shape = ShapeBuilder()
        let count = 100_000
        for _ in 0 ..< count { shape.object("Ring.Link") }
        for index in 0 ..< count { shape.ref(index, (index + 1) % count, "next") }
        let suspect = try onlySuspect(shape)
        #expect(suspect.from == count - 1 && suspect.to == 0)
    }
}

@Suite("Suspect references: creation order")
struct SuspectCreationOrderTests {
    @Test("a ring whose head was created at an earlier site: the link from the last-created object back to it")
    func closingLinkByCreationSite() throws {
        // As Samples/LinkedRing builds it: `first` at one site (stack 3), the nine others at a later site
        // (stack 4); malloc put the second object at the lowest address.
        var shape = ShapeBuilder()
        let addresses: [UInt64] = [0x4de0, 0x4da0, 0x5640, 0x5680, 0x56c0, 0x5700, 0x5740, 0x5780, 0x57c0, 0x5800]
        var ring: [Int] = []
        for address in addresses.sorted() {
            ring.append(shape.object("LinkedRing.DummyObject", address: address))
        }
        // Node order is address order; map creation order to nodes.
        let created = addresses.map { address in ring[addresses.sorted().firstIndex(of: address)!] }
        for (position, node) in created.enumerated() {
            shape.setStack(node, position == 0 ? 3 : 4)
            shape.ref(node, created[(position + 1) % created.count], "next")
        }
        let (analysis, suspects) = shape.suspects()
        try #require(analysis.rootCycles.count == 1)
        let suspect = try #require(suspects[0])
        #expect(suspect.rule == .closingReference)
        #expect(suspect.from == created[9] && suspect.to == created[0], "the closing link last.next → first")
        #expect(suspect.reason.hasSuffix("it leads back to the object whose creation site ran first"))
    }

    @Test("objects of one creation site: the reference into the lowest node, said so")
    func sameSite() throws {
        var shape = ShapeBuilder()
        let ring = (0 ..< 4).map { _ in shape.object("App.Link") }
        for index in ring.indices {
            shape.setStack(ring[index], 9)
            shape.ref(ring[index], ring[(index + 1) % ring.count], "next")
        }
        let suspect = try #require(shape.suspects().suspects[0])
        #expect(suspect.from == ring[3] && suspect.to == ring[0])
        #expect(suspect.reason.hasSuffix("it leads back to the cycle's first object in the heap walk's order"))
    }
}

extension ShapeBuilder {
    /// Gives `node` a creation stack id.
    mutating func setStack(_ node: Int, _ stackID: Int) {
        graphForEditing.nodes[node].stackID = stackID
    }
}
