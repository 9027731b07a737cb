import LeakGraphHeap
import LeakGraphModel
import Testing

/// Closure shapes. The closure property comes first in each holder, so its
/// context pointer is the word at offset 24 (function pointer at 16).
enum CaptureShapes {
    final class Peer {
        var count = 0
    }

    final class Holder {
        var handler: (() -> Void)?
        var count = 0
    }

    final class Lazy {
        var count = 0
        lazy var onTap: () -> Void = { self.count += 1 }
    }

    final class Handlers {
        var handlers: [String: () -> Void] = [:]
        var tasks: [() -> Void] = []
    }

    struct State {
        var peer: Peer?
        var count = 0
    }

    final class Mailbox<Message> {
        var listener: (() -> Void)?
        var delivered = 0

        @inline(never)
        func subscribe(_ message: Message) {
            listener = { self.delivered += 1; _ = message }
        }
    }

    final class Scheduler {
        var job: (() -> Void)?

        @inline(never)
        func schedule<T>(_ value: T, peer: Peer) {
            job = { _ = value; peer.count += 1 }
        }
    }
}

@Suite("Walker: closure captures")
struct CaptureWalkTests {
    typealias S = CaptureShapes
    let peerType = "LeakGraphHeapTests.CaptureShapes.Peer"

    @Test("a closure whose only capture is a captured var: the var's box is the context")
    func capturedVarBoxAsContext() throws {
        let holder = S.Holder()
        let peer = S.Peer()
        var captured: S.Peer?
        holder.handler = { captured?.count += 1 }
        captured = peer
        let box = heapObject(in: holder, at: 24)
        let graph = HeapWalker().walk([record(holder), record(peer), record(address: box)])
        let boxNode = try #require(node(graph, at: box))
        #expect(outgoing(graph, from: holder) == ["handler (closure) strong → \(boxNode.typeName)"])
        // The box's metadata (kind 0x400, one capture of type `Peer?`) is the same as that of a context
        // capturing one `Peer?` by value: it reads as a closure context; its reference must be strong.
        #expect(outgoing(graph, fromAddress: box) == ["capture[0] strong → \(peerType)"])
        // Held by the closure (and by this function's own frame, which the walk does not see).
        #expect(strongInEdges(graph, to: box) == 1)
        withExtendedLifetime(captured) {}
        holder.handler = nil
    }

    @Test("a captured var of struct type inside a multi-capture context, weak var boxes stay weak")
    func capturedVarBoxesInAContext() throws {
        let holder = S.Holder()
        let peer = S.Peer()
        let other = S.Peer()
        var state = S.State()
        weak var weakPeer: S.Peer?
        holder.handler = {
            state.count += 1
            weakPeer?.count += 1
            other.count += 1
        }
        state.peer = peer
        weakPeer = peer
        let context = heapObject(in: holder, at: 24)
        let contextNode = try #require(
            node(HeapWalker().walk([record(address: context)]), at: context))
        #expect(contextNode.kind == .closureContext)
        // Captures: the state box, the weak var's box, `other` — in capture order after the header.
        let stateBox = heapAddress(rawWord(address: context, at: 16))
        let weakBox = heapAddress(rawWord(address: context, at: 24))
        let graph = HeapWalker().walk([
            record(holder), record(peer), record(other), record(address: context), record(address: stateBox),
            record(address: weakBox),
        ])
        let stateType = node(graph, at: stateBox)?.typeName ?? "?"
        let weakType = node(graph, at: weakBox)?.typeName ?? "?"
        #expect(
            outgoing(graph, fromAddress: context) == [
                "capture[0] (box) strong → \(stateType)", "capture[1] (box) strong → \(weakType)",
                "capture[2] strong → \(peerType)",
            ])
        #expect(node(graph, at: stateBox)?.kind == .box && node(graph, at: weakBox)?.kind == .box)
        #expect(outgoing(graph, fromAddress: stateBox) == ["value.peer strong → \(peerType)"])
        #expect(outgoing(graph, fromAddress: weakBox) == ["value weak → \(peerType)"])
        withExtendedLifetime((state, weakPeer)) {}
        holder.handler = nil
    }

    @Test("a lazy var closure is labelled by the property's name, not its hidden storage")
    func lazyVarClosure() {
        let lazy = S.Lazy()
        lazy.onTap()
        let graph = HeapWalker().walk([record(lazy)])
        #expect(outgoing(graph, from: lazy) == ["onTap (closure) strong → LeakGraphHeapTests.CaptureShapes.Lazy"])
        lazy.onTap = {}
    }

    @Test("closures in dictionaries and arrays: the storage holds the closure's context")
    func closuresInCollections() throws {
        let holder = S.Handlers()
        let peer = S.Peer()
        holder.handlers["tap"] = { peer.count += 1 }
        holder.tasks = [{ peer.count += 2 }, { peer.count += 3 }]
        let dictionary = heapObject(in: holder, at: 16)
        let array = heapObject(in: holder, at: 24)
        let graph = HeapWalker().walk([
            record(holder), record(peer), record(address: dictionary), record(address: array),
        ])
        #expect(outgoing(graph, fromAddress: dictionary) == ["[\"tap\"] (closure) strong → \(peerType)"])
        #expect(
            outgoing(graph, fromAddress: array) == ["[0] (closure) strong → \(peerType)", "[1] (closure) strong → \(peerType)"])
        #expect(outgoing(graph, from: holder).count == 2, "\(outgoing(graph, from: holder))")
    }

    @Test("mixed capture ownership: [weak a, unowned b, c] and self")
    func mixedOwnership() throws {
        let holder = S.Holder()
        let a = S.Peer(), b = S.Peer(), c = S.Peer()
        holder.handler = { [weak a, unowned b, c] in
            a?.count += 1
            b.count += c.count + holder.count
        }
        let context = heapObject(in: holder, at: 24)
        var records = [record(holder), record(a), record(b), record(c), record(address: context)]
        // The `[weak a]` capture is boxed (a weak var): the box is the first capture, right after the header.
        let first = heapAddress(rawWord(address: context, at: 16))
        if ![address(holder), address(a), address(b), address(c)].contains(UInt64(first)) {
            records.append(record(address: first))
        }
        let graph = HeapWalker().walk(records)
        let ownershipByTarget = Dictionary(
            graph.references.filter { graph.nodes[$0.to].kind == .class }.map {
                (graph.nodes[$0.to].address, [$0.ownership])
            }, uniquingKeysWith: +)
        #expect(ownershipByTarget[address(a)] == [.weak])
        #expect(ownershipByTarget[address(b)] == [.unowned])
        #expect(ownershipByTarget[address(c)] == [.strong])
        #expect(ownershipByTarget[address(holder)] == [.strong])
        holder.handler = nil
    }

    @Test("a closure that stores another closure: both contexts are the captured object")
    func nestedClosure() throws {
        let holder = S.Holder()
        let inner = S.Holder()
        holder.handler = { inner.handler = { inner.count += 1 } }
        holder.handler?()
        let graph = HeapWalker().walk([record(holder), record(inner)])
        let holderType = "LeakGraphHeapTests.CaptureShapes.Holder"
        #expect(outgoing(graph, from: holder) == ["handler (closure) strong → \(holderType)"])
        #expect(outgoing(graph, from: inner) == ["handler (closure) strong → \(holderType)"])
        #expect(graph.references.filter { $0.to == graph.nodes.firstIndex { $0.address == address(inner) } }.count == 2)
        holder.handler = nil
        inner.handler = nil
    }

    @Test("a generic method of a generic class: the closure captures self and a Message")
    func genericClassCapture() throws {
        let mailbox = S.Mailbox<S.Peer>()
        let peer = S.Peer()
        mailbox.subscribe(peer)
        let context = heapObject(in: mailbox, at: 24)
        let graph = HeapWalker().walk([record(mailbox), record(peer), record(address: context)])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(
            outgoing(graph, fromAddress: context) == [
                "capture[0] strong → LeakGraphHeapTests.CaptureShapes.Mailbox<\(peerType)>",
                "capture[1] strong → \(peerType)",
            ])
        mailbox.listener = nil
    }

    @Test("a generic function's closure capturing a T value (a struct with a reference) and an object")
    func genericFunctionCapture() throws {
        let scheduler = S.Scheduler()
        let peer = S.Peer()
        let held = S.Peer()
        scheduler.schedule(S.State(peer: held, count: 1), peer: peer)
        let context = heapObject(in: scheduler, at: 24)
        let graph = HeapWalker().walk([record(scheduler), record(peer), record(held), record(address: context)])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        #expect(
            outgoing(graph, fromAddress: context) == [
                "capture[0].peer strong → \(peerType)", "capture[1] strong → \(peerType)",
            ])
        scheduler.job = nil
    }
}
