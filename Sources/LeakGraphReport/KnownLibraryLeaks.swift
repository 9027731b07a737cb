/// Leaks that are known to come from a library every program of a kind uses, not from the checked code —
/// in the spirit of LeakCanary's "library leaks". They are still reported (they are real), marked with
/// ``LeakReport/Cycle/knownLibraryLeak``, and `leakgraph run` does not fail on them alone.
public enum KnownLibraryLeaks {
    /// One known library leak: a root cycle whose members include all of `memberTypes`.
    public struct Pattern: Sendable, Hashable {
        /// The library it comes from.
        public var library: String
        /// Types that are all members of the root cycle.
        public var memberTypes: Set<String>
        /// Why it happens, in one or two sentences.
        public var explanation: String

        /// Creates a pattern.
        public init(library: String, memberTypes: Set<String>, explanation: String) {
            self.library = library
            self.memberTypes = memberTypes
            self.explanation = explanation
        }
    }

    /// The known library leaks.
    public static let patterns: [Pattern] = [
        Pattern(
            library: "swift-corelibs-xctest",
            memberTypes: ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"],
            explanation: "XCTMain's root suite and its run reference each other strongly (`testRun` ⇄ `test`) "
                + "and nothing references them once the tests have run, so every test case is held until "
                + "exit. Once per process; not in the code under test."
        )
    ]

    /// The description of the known library leak a root cycle with these member types is, or `nil`.
    public static func match(memberTypes: some Sequence<String>) -> String? {
        let types = Set(memberTypes)
        guard let pattern = patterns.first(where: { $0.memberTypes.isSubset(of: types) }) else { return nil }
        return "known leak in \(pattern.library): \(pattern.explanation)"
    }
}
