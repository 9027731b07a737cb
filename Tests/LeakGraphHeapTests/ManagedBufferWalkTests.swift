import DequeModule
import LeakGraphHeap
import LeakGraphModel
import Testing

/// `ManagedBuffer` tail elements: read where the header names the count.
enum ManagedBufferShapes {
    final class Peer {}

    /// A buffer of the program's own that declares its count (`initializedCount`).
    struct PoolHeader {
        var initializedCount: Int
        var generation = 0
    }

    final class Pool: ManagedBuffer<PoolHeader, Peer> {
        deinit {
            withUnsafeMutablePointers { header, elements in _ = elements.deinitialize(count: header.pointee.initializedCount) }
        }
    }

    /// A buffer whose header is a bare `Int`: its meaning is the program's, so it is not read.
    final class Undeclared: ManagedBuffer<Int, Peer> {
        deinit {
            withUnsafeMutablePointers { count, elements in _ = elements.deinitialize(count: count.pointee) }
        }
    }

    final class Queue { var items: Deque<Peer> = [] }

    /// swift-markdown's syntax tree buffer, by name and shape, but in another module: not read.
    struct RawMarkupHeader {
        let data: Int
        let childCount: Int
        let subtreeCount: Int
        var parsedRange: Range<Int>?
    }

    final class RawMarkup: ManagedBuffer<RawMarkupHeader, Peer> {
        deinit {
            withUnsafeMutablePointers { header, elements in _ = elements.deinitialize(count: header.pointee.childCount) }
        }
    }
}

@Suite("Walker: ManagedBuffer elements")
struct ManagedBufferWalkTests {
    typealias S = ManagedBufferShapes
    let peerType = "LeakGraphHeapTests.ManagedBufferShapes.Peer"

    @Test("a header with `initializedCount` declares elements 0 ..< initializedCount; the others are not read")
    func declaredCount() {
        let peers = [S.Peer(), S.Peer(), S.Peer()]
        let pool = S.Pool.create(minimumCapacity: 8) { _ in S.PoolHeader(initializedCount: 0) } as! S.Pool
        pool.withUnsafeMutablePointers { header, elements in
            for (index, peer) in peers.enumerated() { (elements + index).initialize(to: peer) }
            header.pointee.initializedCount = 2
        }
        let graph = HeapWalker().walk([record(pool)] + peers.map { record($0) })
        #expect(outgoing(graph, from: pool) == ["[0] strong → \(peerType)", "[1] strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
        pool.withUnsafeMutablePointers { header, elements in
            (elements + 2).deinitialize(count: 1)
            header.pointee.initializedCount = 2
        }
    }

    @Test("a count larger than the allocation is no count: nothing read, named")
    func countTooLarge() {
        let peer = S.Peer()
        let pool = S.Pool.create(minimumCapacity: 1) { _ in S.PoolHeader(initializedCount: 0) } as! S.Pool
        pool.withUnsafeMutablePointers { header, _ in header.pointee.initializedCount = 1 << 40 }
        let graph = HeapWalker().walk([record(pool), record(peer)])
        #expect(outgoing(graph, from: pool) == [])
        #expect(graph.diagnostics.map(\.reason) == ["the header's element count does not fit the buffer"])
        pool.withUnsafeMutablePointers { header, _ in header.pointee.initializedCount = 0 }
    }

    @Test("a header without a declared count stays unread, named")
    func undeclared() {
        let peer = S.Peer()
        let buffer = S.Undeclared.create(minimumCapacity: 1) { _ in 0 } as! S.Undeclared
        buffer.withUnsafeMutablePointers { count, elements in
            elements.initialize(to: peer)
            count.pointee = 1
        }
        let graph = HeapWalker().walk([record(buffer), record(peer)])
        #expect(outgoing(graph, from: buffer) == [])
        #expect(
            graph.diagnostics.map(\.reason) == [
                "tail-allocated elements of type \(peerType) are not read (ManagedBuffer: how many are initialized only the program knows)"
            ])
    }

    @Test("a buffer named and shaped like swift-markdown's RawMarkup in another module is not read")
    func lookAlike() {
        let peer = S.Peer()
        let buffer = S.RawMarkup.create(minimumCapacity: 1) { _ in
            S.RawMarkupHeader(data: 0, childCount: 1, subtreeCount: 2, parsedRange: nil)
        } as! S.RawMarkup
        buffer.withUnsafeMutablePointerToElements { $0.initialize(to: peer) }
        let graph = HeapWalker().walk([record(buffer), record(peer)])
        #expect(outgoing(graph, from: buffer) == [])
        #expect(graph.diagnostics.count == 1)
    }

    @Test("swift-collections' Deque: count elements from startSlot, wrapping at capacity")
    func deque() throws {
        let peers = (0..<4).map { _ in S.Peer() }
        let queue = S.Queue()
        queue.items.reserveCapacity(4)
        queue.items.append(peers[1])
        queue.items.append(peers[2])
        queue.items.prepend(peers[0])  // wraps: slot capacity - 1
        let storage = heapObject(in: queue, at: 16)
        let graph = HeapWalker().walk([record(queue), record(address: storage)] + peers.map { record($0) })
        #expect(outgoing(graph, fromAddress: storage) == (0..<3).map { "[\($0)] strong → \(peerType)" })
        let index = try #require(graph.nodes.firstIndex { $0.address == UInt64(storage) })
        let targets = graph.references.filter { $0.from == index }.sorted { $0.label < $1.label }.map { graph.nodes[$0.to].address }
        #expect(targets == peers.prefix(3).map { address($0) })
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }
}
