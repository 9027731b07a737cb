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
        /// The library's own references among the objects the leak holds, which do not make a cycle of the
        /// checked code (XCTest links every test and its run both ways).
        public var ownReferences: [OwnReference]

        /// Creates a pattern.
        public init(library: String, memberTypes: Set<String>, explanation: String, ownReferences: [OwnReference] = []) {
            self.library = library
            self.memberTypes = memberTypes
            self.explanation = explanation
            self.ownReferences = ownReferences
        }
    }

    /// A library's own reference: one whose path is `path` (its text) and whose source or target has
    /// one of the given types (`nil`: any).
    public struct OwnReference: Sendable, Hashable {
        /// The reference's path text, e.g. `testRun`.
        public var path: String
        /// The types the referencing object may have, or `nil` for any.
        public var sourceTypes: Set<String>?
        /// The types the referenced object may have, or `nil` for any.
        public var targetTypes: Set<String>?

        /// Creates a reference pattern.
        public init(path: String, sourceTypes: Set<String>? = nil, targetTypes: Set<String>? = nil) {
            self.path = path
            self.sourceTypes = sourceTypes
            self.targetTypes = targetTypes
        }

        /// Whether a reference with this path text from an object of `sourceType` to one of `targetType`
        /// is this library reference.
        public func matches(path text: String, sourceType: String, targetType: String) -> Bool {
            text == path && sourceTypes.map { $0.contains(sourceType) } != false
                && targetTypes.map { $0.contains(targetType) } != false
        }
    }

    /// XCTest's run types: every test has one, and it references its test strongly (`test`).
    static let xctestRuns: Set<String> = ["XCTest.XCTestRun", "XCTest.XCTestSuiteRun", "XCTest.XCTestCaseRun"]

    /// The known library leaks.
    public static let patterns: [Pattern] = [
        Pattern(
            library: "swift-corelibs-xctest",
            memberTypes: ["XCTest.XCTestSuite", "XCTest.XCTestSuiteRun"],
            explanation: "XCTMain's root suite and its run reference each other strongly (`testRun` ⇄ `test`) "
                + "and nothing references them once the tests have run, so every test case is held until "
                + "exit. Once per process; not in the code under test.",
            ownReferences: [
                OwnReference(path: "testRun", targetTypes: xctestRuns),
                OwnReference(path: "test", sourceTypes: xctestRuns),
            ]
        )
    ]

    /// Whether a reference with path text `path` from an object of `sourceType` to one of `targetType` is
    /// one of a known leaking library's own references (``Pattern/ownReferences``).
    public static func isOwnReference(path: String, sourceType: String, targetType: String) -> Bool {
        patterns.contains { pattern in
            pattern.ownReferences.contains { $0.matches(path: path, sourceType: sourceType, targetType: targetType) }
        }
    }

    /// The description of the known library leak a root cycle with these member types is, or `nil`.
    public static func match(memberTypes: some Sequence<String>) -> String? {
        let types = Set(memberTypes)
        guard let pattern = patterns.first(where: { $0.memberTypes.isSubset(of: types) }) else { return nil }
        return "known leak in \(pattern.library): \(pattern.explanation)"
    }
}
