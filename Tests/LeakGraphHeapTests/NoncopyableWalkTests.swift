@testable import LeakGraphHeap
import LeakGraphModel
import Synchronization
import Testing

/// Fields whose type is not `Copyable`: `Mutex`, `Atomic`,
/// `AtomicLazyReference`, read through their hidden type names.
enum NoncopyableShapes {
    final class Peer: @unchecked Sendable {}

    final class Bus {
        let subscribers = Mutex<[Peer]>([])
        let current = Mutex<Peer?>(nil)
        let lazyPeer = AtomicLazyReference<Peer>()
        let unmanagedPeer = Atomic<Unmanaged<Peer>?>(nil)
        let counter = Atomic<Int>(0)
    }

    final class Generic<Value: AnyObject & Sendable> {
        let held = Mutex<Value?>(nil)
    }

    struct Handle: ~Copyable {
        var peer: Peer
    }

    final class Unknown {
        let handle: Handle
        init(peer: Peer) { handle = Handle(peer: peer) }
    }

    final class Guarded {
        let handle: Mutex<Handle>
        init(peer: Peer) { handle = Mutex(Handle(peer: peer)) }
    }
}

@Suite("Walker: fields that are not Copyable")
struct NoncopyableWalkTests {
    typealias S = NoncopyableShapes
    let peerType = "LeakGraphHeapTests.NoncopyableShapes.Peer"

    @Test("the Synchronization layout facts hold on this toolchain")
    func layoutFacts() {
        #expect(SynchronizationLayout.failure == nil)
    }

    @Test("Mutex values, an AtomicLazyReference (strong) and an Atomic<Unmanaged?> (unmanaged) are read")
    func synchronizationFields() throws {
        let a = S.Peer(), b = S.Peer(), c = S.Peer(), d = S.Peer()
        let bus = S.Bus()
        bus.subscribers.withLock { $0 = [a] }
        bus.current.withLock { $0 = b }
        _ = bus.lazyPeer.storeIfNil(c)
        bus.unmanagedPeer.store(Unmanaged.passUnretained(d), ordering: .relaxed)
        bus.counter.store(7, ordering: .relaxed)
        let storage = heapObject(in: bus, at: 16 + 8)  // after the 4-byte futex word, aligned for the array
        let graph = HeapWalker().walk([record(bus), record(a), record(b), record(c), record(d), record(address: storage)])
        let storageType = try #require(node(graph, at: storage)).typeName
        #expect(
            outgoing(graph, from: bus) == [
                "current strong → \(peerType)", "lazyPeer strong → \(peerType)", "subscribers strong → \(storageType)",
                "unmanagedPeer unmanaged → \(peerType)",
            ])
        #expect(outgoing(graph, fromAddress: storage) == ["[0] strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        // Every retain of the lazily stored peer is explained by the walk: the test's local and the bus.
        #expect(strongInEdges(graph, to: UInt(address(c))) == 1)
    }

    @Test("a Mutex of a generic parameter, resolved in the class's generic context")
    func genericMutex() {
        let peer = S.Peer()
        let holder = S.Generic<S.Peer>()
        holder.held.withLock { $0 = peer }
        let graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(outgoing(graph, from: holder) == ["held strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("a field of a type that is not Copyable and not known stays unread, named")
    func unknownNoncopyable() {
        let peer = S.Peer()
        let holder = S.Unknown(peer: peer)
        let graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(outgoing(graph, from: holder) == [])
        #expect(
            graph.diagnostics.map(\.reason) == [
                "handle: field type LeakGraphHeapTests.NoncopyableShapes.Handle is not Copyable and not a type LeakGraph knows the layout of"
            ])
    }

    @Test("a Mutex of a struct that is not Copyable: found by its descriptor's symbol, its fields read")
    func mutexOfNoncopyableStruct() {
        let peer = S.Peer()
        let holder = S.Guarded(peer: peer)
        let graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(outgoing(graph, from: holder) == ["handle.peer strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("arguments are rewritten to stand alone: word substitutions spelled out, the wrapper's own names refused")
    func argumentRewriting() {
        // `0D6Marker` spells `ProbeMarker` from word 3 ("Probe") of `ProbeKey`, seen before it.
        let words = HiddenTypeName.words(of: "Synchronization") + HiddenTypeName.words(of: "Mutex")
        let rewritten = HiddenTypeName.rewrite(argument: Array("SDy4main8ProbeKeyV4main0D6MarkerCG".utf8)[...], prefixWords: words)
        #expect(rewritten.map { String(decoding: $0, as: UTF8.self) } == "SDy4main8ProbeKeyV4main11ProbeMarkerCG")
        // `AC` is the wrapper type itself (`Mutex<Mutex<Int>>`): refused, never read as the stand-in.
        #expect(HiddenTypeName.rewrite(argument: Array("ACySiG".utf8)[...], prefixWords: words) == nil)
        // An operator outside the accepted grammar (a builtin) is refused.
        #expect(HiddenTypeName.rewrite(argument: Array("Bi64_".utf8)[...], prefixWords: words) == nil)
        #expect(HiddenTypeName.words(of: "AutoDictionary") == ["Auto", "Dictionary"])
    }
}
