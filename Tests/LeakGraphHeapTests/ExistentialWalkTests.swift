import LeakGraphHeap
import LeakGraphModel
import Testing

/// Existential shapes.
enum ExistentialShapes {
    protocol Delegate: AnyObject {}
    protocol Named {}
    protocol Listener: AnyObject {}
    protocol Component {}

    class View {}
    final class Peer: Delegate, Named, Listener {}
    final class Sketch: View, Delegate {}

    struct Caption: Component {
        var owner: Peer
    }

    /// Three words: inline in the buffer.
    struct Pair: Component {
        var first: Peer
        var second: Peer?
        var third: Peer
    }

    /// Small, but a `weak` field is not bitwise-takable: such a value is boxed too.
    struct WeakPair: Component {
        var first: Peer
        weak var second: Peer?
    }

    /// Four words: too big for the three-word buffer, so it lives in a box.
    struct Frame: Component {
        var x = 1
        var y = 2
        var width = 3
        var owner: Peer
    }

    final class ClassBound {
        var delegate: (any Delegate)?
        weak var weakDelegate: (any Delegate)?
        unowned(safe) var unownedDelegate: any Delegate
        var object: AnyObject?
        weak var weakObject: AnyObject?
        var composition: (any Named & Listener)?
        var constrained: (any View & Delegate)?

        init(_ peer: Peer) {
            unownedDelegate = peer
        }
    }

    /// The boxed existential first, so its buffer's first word (the box) is at offset 16.
    final class Opaque {
        var root: any Component = Caption(owner: Peer())
        var content: (any Component)?
        var payload: Any = 0
    }

    final class OptionalExistential {
        var value: (any Component)?
    }

    final class Collections {
        var delegates: [any Delegate] = []
        var parts: [any Component] = []
        var things: [Any] = []
        var byName: [String: any Component] = [:]
    }
}

@Suite("Walker: existentials")
struct ExistentialWalkTests {
    typealias S = ExistentialShapes
    let peerType = "LeakGraphHeapTests.ExistentialShapes.Peer"
    let component = "any LeakGraphHeapTests.ExistentialShapes.Component"

    @Test("class-bound existentials hold the object: strong, weak and unowned")
    func classBound() {
        let peer = S.Peer()
        let sketch = S.Sketch()
        let holder = S.ClassBound(peer)
        holder.delegate = peer
        holder.weakDelegate = peer
        holder.object = peer
        holder.weakObject = peer
        holder.composition = peer
        holder.constrained = sketch
        let graph = HeapWalker().walk([record(holder), record(peer), record(sketch)])
        #expect(
            outgoing(graph, from: holder) == [
                "composition strong → \(peerType)",
                "constrained strong → LeakGraphHeapTests.ExistentialShapes.Sketch",
                "delegate strong → \(peerType)",
                "object strong → \(peerType)",
                "unownedDelegate unowned → \(peerType)",
                "weakDelegate weak → \(peerType)",
                "weakObject weak → \(peerType)",
            ])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("opaque existential with the value inline (three words), and a class instance inside Any")
    func opaqueInline() {
        let a = S.Peer(), b = S.Peer(), c = S.Peer()
        let holder = S.Opaque()
        holder.content = S.Pair(first: a, second: b, third: c)
        holder.payload = a
        let graph = HeapWalker().walk([record(holder), record(a), record(b), record(c)])
        let pair = "LeakGraphHeapTests.ExistentialShapes.Pair"
        #expect(
            outgoing(graph, from: holder).filter { !$0.hasPrefix("root") } == [
                "content (\(pair)).first strong → \(peerType)",
                "content (\(pair)).second strong → \(peerType)",
                "content (\(pair)).third strong → \(peerType)",
                "payload (\(peerType)) strong → \(peerType)",
            ])
    }

    @Test("opaque existential with the value boxed: object → box → the value's references")
    func opaqueBoxed() throws {
        let peer = S.Peer()
        let holder = S.Opaque()
        holder.root = S.Frame(owner: peer)
        let box = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(peer), record(address: box)])
        let boxNode = try #require(node(graph, at: box))
        #expect(
            outgoing(graph, from: holder) == [
                "root (\(component) as LeakGraphHeapTests.ExistentialShapes.Frame, boxed) strong → \(boxNode.typeName)"
            ])
        // The box holds one Frame: it is a box (not a closure context), its reference labelled by the field.
        #expect(boxNode.kind == .box, "\(boxNode)")
        #expect(outgoing(graph, fromAddress: box) == ["value.owner strong → \(peerType)"])
        #expect(strongInEdges(graph, to: box) == boxNode.retainCount)
    }

    @Test("a small value with a weak field is boxed; the box's weak reference stays weak")
    func boxedBecauseNotBitwiseTakable() throws {
        let a = S.Peer(), b = S.Peer()
        let holder = S.OptionalExistential()
        holder.value = S.WeakPair(first: a, second: b)
        let box = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(a), record(b), record(address: box)])
        let boxType = node(graph, at: box)?.typeName ?? "?"
        #expect(
            outgoing(graph, from: holder) == [
                "value (\(component) as LeakGraphHeapTests.ExistentialShapes.WeakPair, boxed) strong → \(boxType)"
            ])
        #expect(
            outgoing(graph, fromAddress: box) == ["value.first strong → \(peerType)", "value.second weak → \(peerType)"])
    }

    @Test("existentials inside arrays: class-bound, inline, boxed and Any elements")
    func insideArrays() throws {
        let a = S.Peer(), b = S.Peer()
        let holder = S.Collections()
        holder.delegates = [a, b]
        holder.parts = [S.Caption(owner: a), S.Frame(owner: b)]
        holder.things = [a, 5, S.Caption(owner: b)]
        let delegates = heapObject(in: holder, at: 16)
        let parts = heapObject(in: holder, at: 24)
        let things = heapObject(in: holder, at: 32)
        let frameBox = heapAddress(rawWord(address: parts, at: 32 + 40))
        let graph = HeapWalker().walk(
            [record(holder), record(a), record(b)]
                + [delegates, parts, things, frameBox].map { record(address: $0) })
        #expect(
            outgoing(graph, from: holder) == [
                "delegates strong → \(node(graph, at: delegates)?.typeName ?? "?")",
                "parts strong → \(node(graph, at: parts)?.typeName ?? "?")",
                "things strong → \(node(graph, at: things)?.typeName ?? "?")",
            ])
        #expect(outgoing(graph, fromAddress: delegates) == ["[0] strong → \(peerType)", "[1] strong → \(peerType)"])
        let caption = "LeakGraphHeapTests.ExistentialShapes.Caption"
        #expect(
            outgoing(graph, fromAddress: parts) == [
                "[0] (\(caption)).owner strong → \(peerType)",
                "[1] (\(component) as LeakGraphHeapTests.ExistentialShapes.Frame, boxed) strong → "
                    + (node(graph, at: frameBox)?.typeName ?? "?"),
            ])
        #expect(
            outgoing(graph, fromAddress: things) == [
                "[0] (\(peerType)) strong → \(peerType)", "[2] (\(caption)).owner strong → \(peerType)",
            ])
        #expect(node(graph, at: frameBox)?.kind == .box)
        #expect(outgoing(graph, fromAddress: frameBox) == ["value.owner strong → \(peerType)"])
    }

    @Test("existentials as dictionary values: the object reaches the storage, the storage the values")
    func insideDictionary() throws {
        let a = S.Peer()
        let holder = S.Collections()
        holder.byName = ["title": S.Caption(owner: a)]
        let storage = heapObject(in: holder, at: 40)
        let graph = HeapWalker().walk([record(holder), record(a), record(address: storage)])
        let storageNode = try #require(node(graph, at: storage))
        #expect(storageNode.kind == .dictionaryStorage)
        #expect(
            outgoing(graph, fromAddress: storage) == [
                "[\"title\"] (LeakGraphHeapTests.ExistentialShapes.Caption).owner strong → \(peerType)"
            ])
        #expect(outgoing(graph, from: holder) == ["byName strong → \(storageNode.typeName)"])
        #expect(strongInEdges(graph, to: storage) == storageNode.retainCount)
    }
}
