@testable import LeakGraphHeap
import LeakGraphModel
import Testing

/// Key paths with captured subscript arguments.
enum KeyPathShapes {
    final class Peer: Hashable {
        static func == (lhs: Peer, rhs: Peer) -> Bool { lhs === rhs }
        func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    }

    struct Tag: Hashable {
        var peer: Peer
        var number: Int
    }

    final class Store {
        subscript(key: Peer) -> Int { 0 }
        subscript(key: Peer, other: Peer) -> Int { 0 }
        subscript(key: Peer, number: Int) -> Int { number }
        subscript(tag: Tag) -> Int { tag.number }
        subscript(name: String) -> Int { name.count }
        var count = 0
    }
}

@Suite("Walker: key path arguments")
struct KeyPathWalkTests {
    typealias S = KeyPathShapes
    let peerType = "LeakGraphHeapTests.KeyPathShapes.Peer"

    @Test("the key path buffer layout holds on this toolchain")
    func layout() {
        #expect(KeyPathArguments.layoutFailure == nil)
    }

    @Test("one argument, two arguments, a struct argument: each a strong reference of the key path")
    func arguments() {
        let a = S.Peer(), b = S.Peer()
        let one: AnyKeyPath = \S.Store.[a]
        let two: AnyKeyPath = \S.Store.[a, 7]
        let tagged: AnyKeyPath = \S.Store.[S.Tag(peer: b, number: 3)]
        let graph = HeapWalker().walk([record(one), record(two), record(tagged), record(a), record(b)])
        #expect(outgoing(graph, from: one) == ["argument strong → \(peerType)"])
        #expect(outgoing(graph, from: two) == ["arguments.0 strong → \(peerType)"])
        #expect(outgoing(graph, from: tagged) == ["argument.peer strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("index types named with a substitution (two of one type): the substitution is followed, both read")
    func repeatedIndexType() {
        let a = S.Peer(), b = S.Peer()
        let two: AnyKeyPath = \S.Store.[a, b]
        let graph = HeapWalker().walk([record(two), record(a), record(b)])
        #expect(Set(outgoing(graph, from: two)) == ["arguments.0 strong → \(peerType)", "arguments.1 strong → \(peerType)"])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }

    @Test("key paths without objects in their arguments, or without arguments, hold nothing")
    func noReferences() {
        let named: AnyKeyPath = \S.Store.["name"]
        let plain: AnyKeyPath = \S.Store.count
        let graph = HeapWalker().walk([record(named), record(plain)])
        #expect(outgoing(graph, from: named) == [])
        #expect(outgoing(graph, from: plain) == [])
        #expect(graph.diagnostics.isEmpty, "\(graph.diagnostics)")
    }
}
