import LeakGraph
import Testing

/// A class only these tests make.
final class CountedWidget {
    let id: Int
    init(id: Int) { self.id = id }
}

/// Where the last widget made is kept (alive when the body returns).
nonisolated(unsafe) var lastCountedWidget: CountedWidget?

/// Makes exactly `count` widgets, keeping only the last one.
@inline(never)
func makeCountedWidgets(_ count: Int) {
    for index in 0..<count {
        lastCountedWidget = CountedWidget(id: index)
    }
}

/// A closure capturing two values: one context per call.
@inline(never)
func makeAdder(_ a: Int, _ b: Int) -> () -> Int {
    { a + b }
}

/// Appends `count` integers to an empty array; returns how often its capacity changed (each change is
/// one new storage object).
@inline(never)
func growArray(_ count: Int) -> (storage: [Int], growths: Int) {
    var values: [Int] = []
    var growths = 0
    var capacity = values.capacity
    for value in 0..<count {
        values.append(value)
        if values.capacity != capacity {
            growths += 1
            capacity = values.capacity
        }
    }
    return (values, growths)
}

@Suite("Allocation counts in-process")
struct AllocationCountTests {
    @Test("a loop making exactly 100 widgets counts 100, one alive when the body returns, at its line")
    func loopOfWidgets() throws {
        let (_, allocations) = try LeakChecker.countingAllocations { makeCountedWidgets(100) }
        #expect(allocations.objects(ofType: "CountedWidget") == 100)
        #expect(allocations.aliveObjects(ofType: "CountedWidget") == 1)
        #expect(allocations.objects == 100, "\(allocations.text())")
        let site = try #require(allocations.sites.first)
        #expect(site.type == "LeakGraphTests.CountedWidget")
        #expect(site.text == "CountedWidget × 100 at AllocationCountTests.swift:17 in makeCountedWidgets(_:)", "\(site)")
        lastCountedWidget = nil
    }

    @Test("a closure context per call")
    func closureContexts() throws {
        let (adders, allocations) = try LeakChecker.countingAllocations { (0..<10).map { makeAdder($0, 1) } }
        #expect(adders.map { $0() } == Array(1...10))
        #expect(allocations.objects(ofType: "(closure context, 2 captures)") == 10, "\(allocations.text())")
    }

    @Test("array growth: one storage per capacity change")
    func arrayGrowth() throws {
        let (result, allocations) = try LeakChecker.countingAllocations { growArray(1000) }
        #expect(result.growths > 3)
        let storage = allocations.types.filter { $0.type.contains("ContiguousArrayStorage") }
        #expect(storage.map(\.objects) == [result.growths], "\(allocations.text())")
        #expect(storage.map(\.aliveObjects) == [1])
    }

    // This test process runs other suites in parallel: an allocation of a thread that runs no task (the
    // Foundation threads of another test's child process) counts in a scope that is the only one open
    // (docs/allocations.md, "Whose"). The two tests below therefore look at what the body's own task
    // makes: every object made on another thread has no frame of this file.

    @Test("LeakGraph makes nothing inside the body: an empty body counts 0, sync and async")
    func emptyBody() async throws {
        let (_, sync) = try LeakChecker.countingAllocations {}
        #expect(Self.ownObjects(sync) == 0, "\(sync.text())")
        #expect(sync.excludedObjects == 0)
        let (_, async) = try await LeakChecker.countingAllocations { await Task.yield() }
        #expect(Self.ownObjects(async) == 0, "\(async.text())")
    }

    /// The objects counted that are not another thread's: those made at a line of this file or with no
    /// line at all (what LeakGraph itself made inside the body would be there); another test's objects
    /// are made at lines of other files.
    static func ownObjects(_ profile: AllocationProfile) -> Int {
        profile.sites.filter { site in
            !(site.text.contains(" at ") && !site.text.contains("AllocationCountTests.swift"))
        }.map(\.objects).reduce(0, +)
    }

    @Test("the same body counts the same five times")
    func deterministic() throws {
        var counts: [Int] = []
        for _ in 0..<5 {
            let (_, allocations) = try LeakChecker.countingAllocations { makeCountedWidgets(50); _ = growArray(100) }
            counts.append(
                allocations.objects(ofType: "CountedWidget")
                    + allocations.types.filter { $0.type.contains("ContiguousArrayStorage") }.map(\.objects).reduce(0, +))
        }
        #expect(Set(counts).count == 1, "\(counts)")
        lastCountedWidget = nil
    }
}
