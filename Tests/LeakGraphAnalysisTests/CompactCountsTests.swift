import LeakGraphAnalysis
import LeakGraphModel
import Testing

@Suite("Counts in a byte each, exact past 255")
struct CompactCountsTests {
    @Test("every value reads back exactly, below, at and above the one-byte limit")
    func roundTrip() {
        let values: [UInt32] = [0, 1, 253, 254, 255, 256, 70_000, UInt32.max, 2]
        let counts = CompactCounts(values)
        #expect(Array(counts) == values)
        #expect(counts == CompactCounts(values))
        #expect(counts != CompactCounts(values.dropLast() + [3]))
    }

    @Test("increments cross 254 and 255 into the side table")
    func increments() {
        var counts = CompactCounts(repeatingZero: 3)
        counts.incrementing { increment in
            for _ in 0..<300 { increment(1) }
            increment(2)
        }
        #expect(Array(counts) == [0, 300, 1])
        counts.increment(at: 1)
        #expect(counts[1] == 301)
        #expect(counts == CompactCounts([0, 301, 1]))
    }

    /// A leaked ring of 1,000 objects, each also referencing one hub: the hub's 1,000 strong in-edges
    /// explain a retain count of 1,000 exactly (leaked with the ring); one retain more makes it a root.
    @Test("a hub with 1,000 strong in-edges: leaked when they explain its count, a root when one retain is left")
    func hubPastOneByte() {
        func graph(hubRetainCount: UInt32) -> StrongReferenceGraph {
            let ring = 1000
            var offsets: [UInt32] = [0]
            var targets: [UInt32] = []
            for node in 0..<ring {
                targets += [UInt32((node + 1) % ring), UInt32(ring)]
                offsets.append(UInt32(targets.count))
            }
            offsets.append(UInt32(targets.count))
            return StrongReferenceGraph(
                retainCounts: [UInt32](repeating: 1, count: ring) + [hubRetainCount], offsets: offsets,
                targets: targets)
        }
        #expect(LeakAnalysis.leakedNodes(of: graph(hubRetainCount: 1000)) == Array(0...1000))
        #expect(LeakAnalysis.leakedNodes(of: graph(hubRetainCount: 1001)) == Array(0..<1000))
        #expect(LeakAnalysis.unexplainedNodes(of: graph(hubRetainCount: 1001)) == [1000])
        #expect(LeakAnalysis.unexplainedNodes(of: graph(hubRetainCount: 1000)).isEmpty)
    }
}
