import Foundation
import LeakGraphHeap
import LeakGraphModel
import Testing

/// Type shapes: generics with class arguments, Foundation fields,
/// NSObject subclasses, actors, class hierarchies across modules, final and non-final classes.
enum TypeShapes {
    final class Peer: @unchecked Sendable {}

    struct Pair<First, Second> {
        var first: First
        var second: Second?
    }

    struct Boxed<Value> {
        var count: Int
        var value: Value
        weak var weakPeer: Peer?
    }

    final class GenericHolder<Value: AnyObject> {
        var pair: Pair<Value, Peer>?
        var boxed: Boxed<Value>?
    }

    class Base<Element> {
        var element: Element?
        var label = "base"
    }

    final class Derived: Base<Peer> {
        var extra: Peer?
    }

    class Animal {
        var name = "animal"
        var keeper: Peer?
    }

    class Dog: Animal {
        var toy: Peer?
    }

    final class Puppy: Dog {
        weak var mother: Dog?
    }

    final class Record {
        var data = Data([1, 2, 3])
        var blob = Data(repeating: 7, count: 4096)
        var url = URL(string: "https://example.com/records/1")!
        var date = Date(timeIntervalSince1970: 1_700_000_000)
        var id = UUID()
        var owner: Peer?
    }

    protocol Delegate: AnyObject {}

    final class Registry: NSObject {
        var count = 1
        var delegate: (any Delegate)?
        weak var weakDelegate: (any Delegate)?
    }

    final class Controller: NSObject, Delegate {
        var registry: Registry?
    }

    final class Encoder: JSONEncoder, @unchecked Sendable {
        var owner: Peer?
    }

    actor Store {
        var count = 0
        let peer: Peer
        weak var weakPeer: Peer?

        init(peer: Peer) {
            self.peer = peer
            self.weakPeer = peer
        }
    }
}

@Suite("Walker: generic, Foundation, NSObject, actor and hierarchy types")
struct TypeKindWalkTests {
    typealias S = TypeShapes
    let peerType = "LeakGraphHeapTests.TypeShapes.Peer"

    @Test("generic structs with class type arguments inside a generic class")
    func genericStructsInGenericClass() {
        let a = S.Peer(), b = S.Peer()
        let holder = S.GenericHolder<S.Peer>()
        holder.pair = S.Pair(first: a, second: b)
        holder.boxed = S.Boxed(count: 1, value: b, weakPeer: a)
        let graph = HeapWalker().walk([record(holder), record(a), record(b)])
        #expect(
            outgoing(graph, from: holder) == [
                "boxed.value strong → \(peerType)", "boxed.weakPeer weak → \(peerType)",
                "pair.first strong → \(peerType)", "pair.second strong → \(peerType)",
            ])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("a subclass of a generic class: inherited generic field first")
    func subclassOfGenericClass() {
        let a = S.Peer(), b = S.Peer()
        let derived = S.Derived()
        derived.element = a
        derived.extra = b
        let graph = HeapWalker().walk([record(derived), record(a), record(b)])
        #expect(outgoing(graph, from: derived) == ["element strong → \(peerType)", "extra strong → \(peerType)"])
    }

    @Test("non-final hierarchy: a final subclass's fields from every level, read through its own metadata")
    func hierarchy() {
        let keeper = S.Peer(), toy = S.Peer()
        let mother = S.Dog()
        let puppy = S.Puppy()
        puppy.keeper = keeper
        puppy.toy = toy
        puppy.mother = mother
        let animal: S.Animal = puppy
        let graph = HeapWalker().walk([record(animal), record(keeper), record(toy), record(mother)])
        #expect(
            outgoing(graph, from: puppy) == [
                "keeper strong → \(peerType)", "mother weak → LeakGraphHeapTests.TypeShapes.Dog",
                "toy strong → \(peerType)",
            ])
    }

    @Test("Foundation value fields beside a reference: no diagnostics, the reference found")
    func foundationFields() {
        let owner = S.Peer()
        let item = S.Record()
        item.owner = owner
        let graph = HeapWalker().walk([record(item), record(owner)])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(outgoing(graph, from: item) == ["owner strong → \(peerType)"])
    }

    @Test("NSObject subclasses: a delegate cycle's references, weak delegate weak")
    func nsObjectDelegate() {
        let registry = S.Registry()
        let controller = S.Controller()
        registry.delegate = controller
        registry.weakDelegate = controller
        controller.registry = registry
        let graph = HeapWalker().walk([record(registry), record(controller)])
        let controllerType = "LeakGraphHeapTests.TypeShapes.Controller"
        #expect(
            outgoing(graph, from: registry) == [
                "delegate strong → \(controllerType)", "weakDelegate weak → \(controllerType)",
            ])
        #expect(outgoing(graph, from: controller) == ["registry strong → LeakGraphHeapTests.TypeShapes.Registry"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        controller.registry = nil
    }

    @Test("a subclass of a Foundation class (fields from another module first)")
    func crossModuleSubclass() {
        let owner = S.Peer()
        let encoder = S.Encoder()
        encoder.owner = owner
        let graph = HeapWalker().walk([record(encoder), record(owner)])
        #expect(outgoing(graph, from: encoder) == ["owner strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("actor stored properties after the default-actor storage")
    func actorFields() {
        let peer = S.Peer()
        let store = S.Store(peer: peer)
        let graph = HeapWalker().walk([record(store), record(peer)])
        #expect(outgoing(graph, from: store) == ["peer strong → \(peerType)", "weakPeer weak → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }
}
