extension LeakReport {
    /// Names the tests that made each root cycle (``Cycle/tests``): `test` gives the test a leaked
    /// object was made in (`nil`: outside any test); a cycle gets the distinct tests of its members, in
    /// member order, or an empty list when none was made in a test.
    ///
    /// The objects a cycle holds do not count: a cycle made outside tests may hold what tests made (the
    /// XCTest suite's own cycle holds every test case), and it was not made by them.
    ///
    /// - Complexity: O(*n*) calls to `test` for *n* members.
    public mutating func attributeTests(_ test: (Leak) -> String?) {
        var position: [Int: Int] = [:]
        for (index, leak) in leaks.enumerated() where position[leak.id] == nil {
            position[leak.id] = index
        }
        for index in cycles.indices {
            var names: [String] = []
            var seen: Set<String> = []
            for member in cycles[index].members {
                guard let leak = position[member], let name = test(leaks[leak]), seen.insert(name).inserted else { continue }
                names.append(name)
            }
            cycles[index].tests = names
        }
    }

    /// The tests named by the root cycles, each once, in cycle order.
    public var testsWithLeaks: [String] {
        var seen: Set<String> = []
        return cycles.flatMap { $0.tests ?? [] }.filter { seen.insert($0).inserted }
    }
}
