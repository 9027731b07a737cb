import LeakGraphAnalysis
import LeakGraphModel
import Testing

/// The dominator tree and retained sizes of heap snapshots whose structure is known exactly.
struct DominatorTreeTests {
    /// The immediate dominator of each object (`nil`: the super-root, or a leak group).
    private func dominators(_ analysis: SnapshotAnalysis, _ count: Int) -> [Int?] {
        (0 ..< count).map { object in
            analysis.tree.immediateDominator(of: object).flatMap { $0 < analysis.superRoot ? $0 : nil }
        }
    }

    @Test func cacheOwningBlobsRetainsThemAndItself() {
        var fixture = SnapshotFixture()
        let cache = fixture.object("App.Cache", size: 48, root: true)
        let storage = fixture.object("Swift._ContiguousArrayStorage<App.Blob>", size: 32 + 8 * 10)
        fixture.reference(cache, storage, "blobs")
        let blobs = fixture.objects(10, "App.Blob", size: 1024)
        for blob in blobs { fixture.reference(storage, blob, "[i]") }
        let analysis = SnapshotAnalysis(fixture.snapshot)
        #expect(analysis.retainedSize(of: cache) == 48 + 112 + 10 * 1024)
        #expect(analysis.retainedSize(of: storage) == 112 + 10 * 1024)
        #expect(analysis.tree.immediateDominator(of: cache) == analysis.superRoot)
        for blob in blobs {
            #expect(analysis.tree.immediateDominator(of: blob) == storage)
            #expect(analysis.retainedSize(of: blob) == 1024)
            #expect(analysis.distances[blob] == 2)
        }
        #expect(analysis.distances[cache] == 0)
        #expect(analysis.totalBytes == 48 + 112 + 10 * 1024)
        let blobType = analysis.types.first { $0.count == 10 }!
        #expect(blobType.shallowBytes == 10 * 1024 && blobType.retainedBytes == 10 * 1024)
    }

    @Test func blobsSharedByTwoCachesAreRetainedByNeither() {
        var fixture = SnapshotFixture()
        let first = fixture.object("App.Cache", size: 40, root: true)
        let second = fixture.object("App.Cache", size: 40, root: true)
        let own1 = fixture.object("App.Blob", size: 100)
        let own2 = fixture.object("App.Blob", size: 200)
        let shared = fixture.object("App.Blob", size: 1000)
        fixture.reference(first, own1, "a")
        fixture.reference(first, shared, "shared")
        fixture.reference(second, own2, "a")
        fixture.reference(second, shared, "shared")
        let analysis = SnapshotAnalysis(fixture.snapshot)
        #expect(analysis.retainedSize(of: first) == 140)
        #expect(analysis.retainedSize(of: second) == 240)
        #expect(analysis.tree.immediateDominator(of: shared) == analysis.superRoot)
        #expect(analysis.retainedSize(of: shared) == 1000)
        #expect(dominators(analysis, 5) == [nil, nil, first, second, nil])
        // Two caches and their blobs: no cache dominates the other, so both count for their type.
        let cacheRow = analysis.types[0]
        #expect(cacheRow.count == 2 && cacheRow.retainedBytes == 380)
    }

    @Test func diamondIsDominatedByItsTop() {
        var fixture = SnapshotFixture()
        let top = fixture.object("App.Top", root: true)
        let left = fixture.object("App.Side")
        let right = fixture.object("App.Side")
        let bottom = fixture.object("App.Bottom", size: 500)
        fixture.reference(top, left, "left")
        fixture.reference(top, right, "right")
        fixture.reference(left, bottom, "down")
        fixture.reference(right, bottom, "down")
        let analysis = SnapshotAnalysis(fixture.snapshot)
        #expect(dominators(analysis, 4) == [nil, top, top, top])
        #expect(analysis.retainedSize(of: top) == 32 * 3 + 500)
        #expect(analysis.retainedSize(of: left) == 32)
        #expect(analysis.distances == [0, 1, 1, 2])
    }

    @Test func chainNestsAndItsTypeCountsOnce() {
        var fixture = SnapshotFixture()
        let links = fixture.objects(1000, "App.Link", size: 16)
        fixture = {
            var fixture = fixture
            for (from, to) in zip(links, links.dropFirst()) { fixture.reference(from, to) }
            return fixture
        }()
        var snapshot = fixture.snapshot
        snapshot.objects.retainCount[0] += 1  // a global holds the head
        let analysis = SnapshotAnalysis(snapshot)
        #expect(dominators(analysis, 1000) == [nil] + links.dropLast())
        #expect(analysis.retainedSize(of: 0) == 16_000)
        #expect(analysis.retainedSize(of: 999) == 16)
        #expect(analysis.distances[999] == 999)
        // Every link dominates the next: the type's retained size counts the head alone.
        #expect(analysis.types[0].retainedBytes == 16_000)
    }

    @Test func cycleReachableFromAGlobal() {
        var fixture = SnapshotFixture()
        let owner = fixture.object("App.Owner", root: true)
        let parent = fixture.object("App.Parent", size: 64)
        let child = fixture.object("App.Child", size: 48)
        fixture.reference(owner, parent, "parent")
        fixture.reference(parent, child, "child")
        fixture.reference(child, parent, "parent")
        let analysis = SnapshotAnalysis(fixture.snapshot)
        #expect(dominators(analysis, 3) == [nil, owner, parent])
        #expect(analysis.retainedSize(of: parent) == 112)
        #expect(analysis.retainedSize(of: owner) == 144)
        #expect(analysis.leakGroups.isEmpty)
    }

    @Test func leakedCycleIsAGroupThatRetainsWhatItHolds() {
        var fixture = SnapshotFixture()
        let live = fixture.object("App.Live", root: true)
        let a = fixture.object("App.Ring", size: 100)
        let b = fixture.object("App.Ring", size: 100)
        let held = fixture.object("App.Held", size: 50)
        fixture.reference(a, b)
        fixture.reference(b, a)
        fixture.reference(b, held, "held")
        fixture.markLeaked([a, b, held])
        let analysis = SnapshotAnalysis(fixture.snapshot)
        #expect(analysis.leakGroups == [[a, b]])
        let group = analysis.superRoot + 1
        #expect(analysis.tree.immediateDominator(of: a) == group)
        #expect(analysis.tree.immediateDominator(of: b) == group)
        #expect(analysis.tree.immediateDominator(of: held) == b)
        #expect(analysis.retainedSize(of: group) == 250)
        #expect(analysis.distances[a] == 0 && analysis.distances[held] == 1)
        #expect(analysis.distances[live] == 0)
        #expect(analysis.types[1].leakedCount == 2)
    }

    @Test func weakReferencesDoNotRetain() {
        var fixture = SnapshotFixture()
        let owner = fixture.object("App.Owner", root: true)
        let delegate = fixture.object("App.Delegate", root: true)
        fixture.reference(owner, delegate, "delegate", .weak)
        let analysis = SnapshotAnalysis(fixture.snapshot)
        #expect(analysis.retainedSize(of: owner) == 32)
        #expect(analysis.tree.immediateDominator(of: delegate) == analysis.superRoot)
    }

    @Test func accumulationPointIsWhereTheMemoryFansOut() {
        var fixture = SnapshotFixture()
        let app = fixture.object("App.App", root: true)
        let cache = fixture.object("App.Cache")
        let storage = fixture.object("Swift._DictionaryStorage<Swift.String, App.Blob>", size: 4096)
        fixture.reference(app, cache, "cache")
        fixture.reference(cache, storage, "entries")
        for blob in fixture.objects(200, "App.Blob", size: 512) { fixture.reference(storage, blob, "[key]") }
        let small = fixture.object("App.Small", root: true)
        let analysis = SnapshotAnalysis(fixture.snapshot)
        let points = analysis.accumulationPoints(in: fixture.snapshot)
        #expect(points.count == 1)
        #expect(points.first?.reason == .largeShare)
        #expect(points.first?.object == storage)
        #expect(points.first?.holder == app)
        #expect(points.first?.childCount == 200)
        #expect(points.first?.childType == 3)
        #expect(analysis.retainedSize(of: small) == 32)
    }

    /// Lengauer–Tarjan against the definition (a node's dominators are the nodes every path from the
    /// root passes through), on random graphs.
    @Test func randomGraphsMatchTheDefinition() {
        var random = SplitMix64(state: 25)
        for _ in 0 ..< 300 {
            let n = 1 + random.below(14)
            var successors = [[Int]](repeating: [], count: n)
            for _ in 0 ..< random.below(3 * n + 1) {
                successors[random.below(n)].append(random.below(n))
            }
            var offsets: [UInt32] = [0]
            var targets: [UInt32] = []
            for list in successors {
                targets += list.map(UInt32.init)
                offsets.append(UInt32(targets.count))
            }
            let tree = DominatorTree(nodeCount: n, offsets: offsets, targets: targets, root: 0)
            // Reachable without passing through `removed`.
            func reachable(without removed: Int?) -> [Bool] {
                var seen = [Bool](repeating: false, count: n)
                guard removed != 0 else { return seen }
                seen[0] = true
                var stack = [0]
                while let node = stack.popLast() {
                    for next in successors[node] where !seen[next] && next != removed {
                        seen[next] = true
                        stack.append(next)
                    }
                }
                return seen
            }
            let reach = reachable(without: nil)
            let without = (0 ..< n).map { reachable(without: $0) }
            for v in 0 ..< n {
                guard reach[v] else {
                    #expect(!tree.isReached(v))
                    continue
                }
                guard v != 0 else { continue }
                let strict = (0 ..< n).filter { d in d != v && !without[d][v] }
                // The immediate dominator is the strict dominator that every other one dominates.
                let expected = strict.first { d in strict.allSatisfy { other in other == d || !without[other][d] } }
                #expect(tree.immediateDominator(of: v) == expected)
            }
        }
    }
}
