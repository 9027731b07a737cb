import LeakGraphHeap
import LeakGraphModel
import Testing

/// Collection shapes. Each collection is the first stored property of its
/// holder (offset 16), so the test can find its storage object.
enum CollectionShapes {
    final class Peer {}

    final class Key: Hashable {
        let id: Int
        init(_ id: Int) { self.id = id }
        static func == (lhs: Key, rhs: Key) -> Bool { lhs.id == rhs.id }
        func hash(into hasher: inout Hasher) { hasher.combine(id) }
    }

    final class Entries { var entries: [String: Peer] = [:] }
    final class Counts { var counts: [Key: Int] = [:] }
    final class Members { var members: Set<Key> = [] }
    final class WeakValues { var values: [Int: Weak] = [:] }
    final class Slice { var window: ArraySlice<Peer> = [] }
    final class Contiguous { var items: ContiguousArray<Peer> = [] }
    final class Grid { var rows: [[Peer]] = [] }
    final class Tagged { var byTag: [String: [Peer]] = [:] }

    struct Weak {
        weak var peer: Peer?
    }
}

@Suite("Walker: collections")
struct CollectionWalkTests {
    typealias S = CollectionShapes
    let peerType = "LeakGraphHeapTests.CollectionShapes.Peer"
    let keyType = "LeakGraphHeapTests.CollectionShapes.Key"

    @Test("a Dictionary property is a strong reference to its storage; values are labelled by key")
    func dictionaryValues() throws {
        let a = S.Peer(), b = S.Peer()
        let holder = S.Entries()
        holder.entries = ["alpha": a, "beta": b]
        let storage = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(a), record(b), record(address: storage)])
        let storageNode = try #require(node(graph, at: storage))
        #expect(storageNode.kind == .dictionaryStorage)
        #expect(
            outgoing(graph, fromAddress: storage) == ["[\"alpha\"] strong → \(peerType)", "[\"beta\"] strong → \(peerType)"])
        // The storage is held by the property alone: that reference must be seen, or the storage (and all
        // it holds) counts as held from outside and a cycle through it is never reported.
        #expect(outgoing(graph, from: holder) == ["entries strong → \(storageNode.typeName)"])
        #expect(strongInEdges(graph, to: storage) == storageNode.retainCount)
    }

    @Test("class keys are strong references of the storage, labelled without a bucket number")
    func dictionaryKeys() throws {
        let one = S.Key(1), two = S.Key(2)
        let holder = S.Counts()
        holder.counts = [one: 10, two: 20]
        let storage = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(one), record(two), record(address: storage)])
        let labels = outgoing(graph, fromAddress: storage)
        #expect(
            labels.count == 2 && labels.allSatisfy { $0.hasPrefix("key") && $0.hasSuffix("strong → \(keyType)") },
            "\(labels)")
        // Bucket numbers depend on the per-process hash seed: a label with one is not the same across runs.
        #expect(labels.allSatisfy { !$0.contains("bucket") }, "\(labels)")
        #expect(outgoing(graph, from: holder).count == 1)
    }

    @Test("Set members; the Set property is a strong reference to its storage")
    func setMembers() throws {
        let one = S.Key(1), two = S.Key(2), three = S.Key(3)
        let holder = S.Members()
        holder.members = [one, two, three]
        let storage = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(one), record(two), record(three), record(address: storage)])
        let storageNode = try #require(node(graph, at: storage))
        #expect(storageNode.kind == .setStorage)
        #expect(outgoing(graph, fromAddress: storage) == Array(repeating: "member strong → \(keyType)", count: 3))
        #expect(outgoing(graph, from: holder) == ["members strong → \(storageNode.typeName)"])
    }

    @Test("weak references inside dictionary values stay weak")
    func weakValues() {
        let a = S.Peer()
        let holder = S.WeakValues()
        holder.values = [7: S.Weak(peer: a)]
        let storage = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(a), record(address: storage)])
        #expect(outgoing(graph, fromAddress: storage) == ["[7].peer weak → \(peerType)"])
    }

    @Test("ArraySlice: the property holds the whole array storage, which holds every element")
    func arraySlice() throws {
        let peers = (0..<4).map { _ in S.Peer() }
        let holder = S.Slice()
        holder.window = peers[1..<3]
        // ArraySlice's buffer: owner (the storage), base address, start index, end index and flags.
        let storage = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(address: storage)] + peers.map { record($0) })
        let storageNode = try #require(node(graph, at: storage))
        #expect(storageNode.kind == .arrayStorage)
        #expect(outgoing(graph, fromAddress: storage) == (0..<4).map { "[\($0)] strong → \(peerType)" })
        // The slice is one reference to the storage, labelled by the property (not its internal `owner`).
        #expect(outgoing(graph, from: holder) == ["window strong → \(storageNode.typeName)"])
    }

    @Test("ContiguousArray of classes")
    func contiguousArray() {
        let peers = [S.Peer(), S.Peer()]
        let holder = S.Contiguous()
        holder.items = ContiguousArray(peers)
        let storage = heapObject(in: holder, at: 16)
        let graph = HeapWalker().walk([record(holder), record(address: storage)] + peers.map { record($0) })
        #expect(outgoing(graph, fromAddress: storage) == ["[0] strong → \(peerType)", "[1] strong → \(peerType)"])
        #expect(outgoing(graph, from: holder).count == 1)
    }

    @Test("nested arrays: outer storage → row storages → elements")
    func nestedArrays() throws {
        let peers = (0..<3).map { _ in S.Peer() }
        let holder = S.Grid()
        holder.rows = [[peers[0], peers[1]], [peers[2]]]
        let outer = heapObject(in: holder, at: 16)
        let rows = [heapAddress(rawWord(address: outer, at: 32)), heapAddress(rawWord(address: outer, at: 40))]
        let graph = HeapWalker().walk(
            [record(holder), record(address: outer)] + rows.map { record(address: $0) } + peers.map { record($0) })
        #expect(outgoing(graph, fromAddress: outer).map { $0.prefix(while: { $0 != " " }) } == ["[0]", "[1]"])
        #expect(rows.allSatisfy { node(graph, at: $0)?.kind == .arrayStorage })
        #expect(outgoing(graph, fromAddress: rows[0]) == ["[0] strong → \(peerType)", "[1] strong → \(peerType)"])
        #expect(outgoing(graph, fromAddress: rows[1]) == ["[0] strong → \(peerType)"])
    }

    @Test("a dictionary of arrays: dictionary storage → array storages labelled by key")
    func dictionaryOfArrays() throws {
        let peers = (0..<3).map { _ in S.Peer() }
        let holder = S.Tagged()
        holder.byTag = ["red": [peers[0], peers[1]], "blue": [peers[2]]]
        let storage = heapObject(in: holder, at: 16)
        var red: [S.Peer] = holder.byTag["red"]!
        var blue: [S.Peer] = holder.byTag["blue"]!
        let redStorage = storageAddress(of: &red)
        let blueStorage = storageAddress(of: &blue)
        let graph = HeapWalker().walk(
            [record(holder), record(address: storage), record(address: redStorage), record(address: blueStorage)]
                + peers.map { record($0) })
        #expect(
            outgoing(graph, fromAddress: storage).map { String($0.prefix(while: { $0 != " " })) }.sorted()
                == ["[\"blue\"]", "[\"red\"]"])
        #expect(outgoing(graph, fromAddress: redStorage).count == 2)
        #expect(outgoing(graph, from: holder).count == 1)
        withExtendedLifetime((red, blue)) {}
    }

    @Test("removed elements leave stale words in storage: they are not references")
    func removedElementsAreNotReferences() {
        let kept = S.Peer(), removed = S.Peer()
        let grid = S.Grid()
        grid.rows = [[kept, removed]]
        grid.rows[0].removeLast()
        var row = grid.rows[0]
        let rowStorage = storageAddress(of: &row)
        let entries = S.Entries()
        entries.entries = ["kept": kept, "removed": removed]
        entries.entries["removed"] = nil
        let dictionary = heapObject(in: entries, at: 16)
        let keptKey = S.Key(1), removedKey = S.Key(2)
        let members = S.Members()
        members.members = [keptKey, removedKey]
        members.members.remove(removedKey)
        let set = heapObject(in: members, at: 16)
        let graph = HeapWalker().walk([
            record(kept), record(removed), record(keptKey), record(removedKey), record(address: rowStorage),
            record(address: dictionary), record(address: set),
        ])
        #expect(outgoing(graph, fromAddress: rowStorage) == ["[0] strong → \(peerType)"])
        #expect(outgoing(graph, fromAddress: dictionary) == ["[\"kept\"] strong → \(peerType)"])
        #expect(outgoing(graph, fromAddress: set) == ["member strong → \(keyType)"])
        #expect(strongInEdges(graph, to: UInt(address(removed))) == 0)
        #expect(strongInEdges(graph, to: UInt(address(removedKey))) == 0)
        withExtendedLifetime(row) {}
    }
}
