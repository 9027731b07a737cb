import LeakGraphHeap
import LeakGraphModel
import Testing

/// Enum shapes whose payloads hold references.
enum EnumShapes {
    final class Peer {}

    struct WeakPeer {
        weak var peer: Peer?
    }

    /// Single payload case (a tuple) beside empty cases.
    enum Connection {
        case idle
        case closed
        case connected(Peer, retries: Int)
        case watching(WeakPeer, unowned: Unowned)
    }

    struct Unowned {
        unowned var peer: Peer
    }

    /// Single class payload: the enum is one pointer word.
    enum Power {
        case off
        case standby
        case on(Peer)
    }

    /// Two class payloads sharing the pointer's spare bits.
    enum Route {
        case primary(Peer)
        case backup(Peer)
        case offline
    }

    /// An Int payload has no spare bits: an extra tag byte follows the payload.
    enum Slot {
        case owner(Peer)
        case guest(Peer)
        case code(Int)
        case empty
    }

    enum Tree {
        case leaf(Peer)
        case weakLeaf(WeakPeer)
        indirect case node(Tree, Tree)
    }

    indirect enum Chain {
        case end(Peer)
        case link(String, Chain)
    }

    enum Filled {
        case some(Peer?)
        case none
    }

    struct Failure: Error, @unchecked Sendable {
        var peer: Peer
    }

    enum Either<L, R> {
        case left(L)
        case right(R)
    }

    final class Holder {
        var connection: Connection = .idle
        var power: Power = .off
        var route: Route = .offline
        var slot: Slot = .empty
        var outcome: Result<Peer, any Error>?
        var typed: Result<Peer, Never>?
        var phase: Route?
        var filled: Filled = .none
        var doubly: Peer??
        var either: Either<Peer, Int> = .right(0)
    }

    /// The indirect enum first, so its (possibly tagged) pointer is at offset 16.
    final class TreeHolder {
        var tree: Tree?
    }

    final class ChainHolder {
        var chain: Chain?
    }

    /// A plain `Result<Int, any Error>` first: its payload word is the error box pointer on failure.
    final class ErrorHolder {
        var outcome: Result<Int, any Error> = .success(0)
    }
}

@Suite("Walker: enum payloads")
struct EnumWalkTests {
    typealias S = EnumShapes
    let peerType = "LeakGraphHeapTests.EnumShapes.Peer"

    /// The references out of `holder` when only it and `peer` are walked.
    func walked(_ holder: S.Holder, _ peer: S.Peer) -> [String] {
        outgoing(HeapWalker().walk([record(holder), record(peer)]), from: holder)
    }

    @Test("single-payload enum: the active case's tuple payload, with weak and unowned fields")
    func singlePayload() {
        let peer = S.Peer()
        let holder = S.Holder()
        holder.connection = .connected(peer, retries: 2)
        var graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(outgoing(graph, from: holder) == ["connection (.connected).0 strong → \(peerType)"])

        holder.connection = .watching(S.WeakPeer(peer: peer), unowned: S.Unowned(peer: peer))
        graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(
            outgoing(graph, from: holder) == [
                "connection (.watching).0.peer weak → \(peerType)",
                "connection (.watching).unowned.peer unowned → \(peerType)",
            ])

        for empty in [S.Connection.idle, .closed] {
            holder.connection = empty
            graph = HeapWalker().walk([record(holder), record(peer)])
            #expect(outgoing(graph, from: holder).isEmpty)
        }
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("single class payload: one pointer word, empty cases in its extra inhabitants")
    func singleReferencePayload() {
        let peer = S.Peer()
        let holder = S.Holder()
        holder.power = .on(peer)
        #expect(walked(holder, peer) == ["power (.on) strong → \(peerType)"])
        holder.power = .standby
        #expect(walked(holder, peer).isEmpty)
    }

    @Test("multi-payload enum with spare-bit tags: each case read with its own label")
    func multiPayloadSpareBits() {
        let peer = S.Peer()
        let holder = S.Holder()
        holder.route = .primary(peer)
        #expect(walked(holder, peer) == ["route (.primary) strong → \(peerType)"])
        holder.route = .backup(peer)
        #expect(walked(holder, peer) == ["route (.backup) strong → \(peerType)"])
        holder.route = .offline
        #expect(walked(holder, peer).isEmpty)
    }

    @Test("multi-payload enum with an extra tag byte (an Int payload beside class payloads)")
    func multiPayloadExtraTag() {
        let peer = S.Peer()
        let holder = S.Holder()
        holder.slot = .guest(peer)
        #expect(walked(holder, peer) == ["slot (.guest) strong → \(peerType)"])
        holder.slot = .owner(peer)
        #expect(walked(holder, peer) == ["slot (.owner) strong → \(peerType)"])
        // An Int payload whose bits look like the peer's address is not a reference.
        holder.slot = .code(Int(bitPattern: UInt(address(peer))))
        #expect(walked(holder, peer).isEmpty)
    }

    @Test("Result payloads: success is the object, failure points to the error box")
    func resultPayloads() {
        let peer = S.Peer()
        let holder = S.Holder()
        holder.outcome = .success(peer)
        holder.typed = .success(peer)
        let graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(
            outgoing(graph, from: holder) == [
                "outcome (.success) strong → \(peerType)", "typed (.success) strong → \(peerType)",
            ])
        #expect(strongInEdges(graph, to: UInt(address(peer))) == 2)
    }

    @Test("a Result failure's error box is a strong reference; the error inside it holds the peer")
    func errorBoxContents() {
        let peer = S.Peer()
        let holder = S.ErrorHolder()
        holder.outcome = .failure(S.Failure(peer: peer))
        let box = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(peer), record(address: box)])
        #expect(outgoing(graph, from: holder) == ["outcome (.failure) strong → \(node(graph, at: box)?.typeName ?? "?")"])
        // The error box (metadata kind 0x501) holds the Failure value, whose `peer` is a strong reference.
        #expect(outgoing(graph, fromAddress: box).count == 1, "error box contents: \(outgoing(graph, fromAddress: box))")
        #expect(
            outgoing(graph, fromAddress: box).allSatisfy { $0.hasSuffix("strong → \(peerType)") && $0.contains("peer") })
    }

    @Test("optionals of enums, enums of optionals, nested optionals, generic enums")
    func optionalsAndEnumsOfOptionals() {
        let peer = S.Peer()
        let holder = S.Holder()
        holder.phase = .backup(peer)
        holder.filled = .some(peer)
        holder.doubly = .some(.some(peer))
        holder.either = .left(peer)
        var graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(
            outgoing(graph, from: holder) == [
                "doubly strong → \(peerType)",
                "either (.left) strong → \(peerType)",
                "filled (.some) strong → \(peerType)",
                "phase (.backup) strong → \(peerType)",
            ])
        holder.phase = .offline
        holder.filled = .some(nil)
        holder.doubly = .some(nil)
        holder.either = .right(Int(bitPattern: UInt(address(peer))))
        graph = HeapWalker().walk([record(holder), record(peer)])
        #expect(outgoing(graph, from: holder).isEmpty)
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("indirect case: the object points to a payload box, the box to the payload's references")
    func indirectCaseBox() throws {
        let peer = S.Peer()
        let other = S.Peer()
        let holder = S.TreeHolder()
        holder.tree = .node(.leaf(peer), .weakLeaf(S.WeakPeer(peer: other)))
        let box = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(peer), record(other), record(address: box)])
        let boxNode = try #require(node(graph, at: box))
        #expect(outgoing(graph, from: holder) == ["tree (.node) (indirect) strong → \(boxNode.typeName)"])
        // The box is a box, not a closure context, and its labels say where in the payload each reference is.
        #expect(boxNode.kind == .box, "\(boxNode)")
        #expect(
            outgoing(graph, fromAddress: box) == [
                "value.0 (.leaf) strong → \(peerType)", "value.1 (.weakLeaf).peer weak → \(peerType)",
            ])
        #expect(strongInEdges(graph, to: box) == 1 && boxNode.retainCount == 1)
    }

    @Test("indirect enum: every case boxed, boxes chained")
    func indirectEnumChain() throws {
        let peer = S.Peer()
        let holder = S.ChainHolder()
        holder.chain = .link("north", .end(peer))
        // The `.link` box holds (String, Chain): the inner box pointer sits after the box header (16) and
        // the String (16).
        let link = heapObject(in: holder, at: 16)
        let end = heapAddress(rawWord(address: link, at: 32))
        let graph = HeapWalker().walk([record(holder), record(peer), record(address: link), record(address: end)])
        let linkNode = try #require(node(graph, at: link))
        let endNode = try #require(node(graph, at: end))
        #expect(outgoing(graph, from: holder) == ["chain (.link) (indirect) strong → \(linkNode.typeName)"])
        #expect(outgoing(graph, fromAddress: link) == ["value.1 (.end) (indirect) strong → \(endNode.typeName)"])
        #expect(outgoing(graph, fromAddress: end) == ["value strong → \(peerType)"])
        #expect(linkNode.kind == .box && endNode.kind == .box, "\(linkNode.kind) \(endNode.kind)")
    }
}
