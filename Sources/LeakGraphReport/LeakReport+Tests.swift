extension LeakReport {
    /// Names the tests that made each root cycle (``Cycle/tests``): `test` gives the test a leaked
    /// object was made in (`nil`: outside any test); a cycle gets the distinct tests of its members, in
    /// member order, or an empty list when none was made in a test.
    ///
    /// The objects a cycle holds do not count: a cycle made outside tests may hold what tests made (the
    /// XCTest suite's own cycle holds every test case), and it was not made by them.
    ///
    /// A name may carry its module before a unit separator (U+001F), `Chat\u{1F}RoomTests.testJoin`, as the
    /// test observer records it: the module is dropped (`RoomTests.testJoin`) unless two tests named in this
    /// report would then read the same, which keep it (`ChatTests.RoomTests.testJoin`,
    /// `ChatUITests.RoomTests.testJoin`).
    ///
    /// - Complexity: O(*n*) calls to `test` for *n* members.
    public mutating func attributeTests(_ test: (Leak) -> String?) {
        var position: [Int: Int] = [:]
        for (index, leak) in leaks.enumerated() where position[leak.id] == nil {
            position[leak.id] = index
        }
        var recorded: [[String]] = []
        for index in cycles.indices {
            var names: [String] = []
            var seen: Set<String> = []
            for member in cycles[index].members {
                guard let leak = position[member], let name = test(leaks[leak]), seen.insert(name).inserted else {
                    continue
                }
                names.append(name)
            }
            recorded.append(names)
        }
        let shown = Self.testNames(for: Set(recorded.joined()))
        for index in cycles.indices {
            var seen: Set<String> = []
            cycles[index].tests = recorded[index].map { shown[$0] ?? $0 }.filter { seen.insert($0).inserted }
        }
    }

    /// Recorded test names (`Module\u{1F}Suite.test`) → the names shown: without the module, unless
    /// another of `names` would then read the same (then `Module.Suite.test`).
    static func testNames(for names: Set<String>) -> [String: String] {
        var byShort: [String: Set<String>] = [:]
        for name in names {
            let parts = name.split(separator: "\u{1F}", maxSplits: 1, omittingEmptySubsequences: false)
            byShort[String(parts.last ?? ""), default: []].insert(name)
        }
        var result: [String: String] = [:]
        for (short, full) in byShort {
            for name in full {
                result[name] = full.count == 1 ? short : String(name.map { $0 == "\u{1F}" ? "." : $0 })
            }
        }
        return result
    }

    /// The tests named by the root cycles, each once, in cycle order.
    public var testsWithLeaks: [String] {
        var seen: Set<String> = []
        return cycles.flatMap { $0.tests ?? [] }.filter { seen.insert($0).inserted }
    }
}
