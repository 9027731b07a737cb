import LeakGraphTestSupport
import LeakGraphModel

/// Builds hand-made object graphs with fixed addresses (`0x1000 + 0x40 × index`), so analysis tests need
/// no real heap.
struct GraphFixture {
    var graph = ObjectGraph()

    /// Adds an object with the given strong retain count and returns its index.
    @discardableResult
    mutating func object(retainCount: Int, type: String = "Fixture.Node", size: Int = 32) -> Int {
        let index = graph.nodes.count
        return graph.addNode(
            ObjectNode(address: 0x1000 + 0x40 * UInt64(index), typeName: type, kind: .class, size: size, retainCount: retainCount)
        )
    }

    /// Adds `count` objects and returns their indices.
    mutating func objects(_ count: Int, retainCount: Int, type: String = "Fixture.Node") -> [Int] {
        (0 ..< count).map { _ in object(retainCount: retainCount, type: type) }
    }

    /// Adds a strong reference.
    mutating func strong(_ from: Int, _ to: Int, _ label: String = "next") {
        graph.addReference(from: from, to: to, path: path(label), ownership: .strong)
    }

    /// Adds a reference of another ownership.
    mutating func reference(_ from: Int, _ to: Int, _ ownership: Ownership, _ label: String = "back") {
        graph.addReference(from: from, to: to, path: path(label), ownership: ownership)
    }
}
