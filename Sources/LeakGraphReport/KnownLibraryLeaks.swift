/// Leaks that are known to come from a library every program of a kind uses, not from the checked code —
/// in the spirit of LeakCanary's "library leaks". They are still reported (they are real), marked with
/// ``LeakReport/Cycle/knownLibraryLeak``, and `leakgraph run` does not fail on them alone.
public enum KnownLibraryLeaks {
    /// What a built-in baseline entry adds for a known library leak (``BaselineEntry/library``): the
    /// library's name, and its own references among what the leak holds.
    public struct Library: Sendable, Hashable {
        /// The library the leak comes from.
        public var name: String
        /// The library's own references among the objects the leak holds, which do not make a cycle of the
        /// checked code (XCTest links every test and its run both ways).
        public var ownReferences: [OwnReference]
        /// Whether every member of a cycle must have one of the entry's types (a cycle of the library's
        /// objects alone), not only one member per type: a cycle the checked code's objects are part of
        /// is then the code's own.
        public var everyMember: Bool

        /// Creates a library description.
        public init(name: String, ownReferences: [OwnReference] = [], everyMember: Bool = false) {
            self.name = name
            self.ownReferences = ownReferences
            self.everyMember = everyMember
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

    /// The built-in baseline: one entry per known library leak, each with its ``Library``. It is matched
    /// like a user's baseline (``Baseline/entry(matching:memberTypes:memberBacktraces:)``); unlike a
    /// user's entry, a match excuses only the cycle itself, and marks it ``LeakReport/Cycle/knownLibraryLeak``.
    public static let baseline = Baseline(
        source: "built-in",
        entries: [
            BaselineEntry(
                .types([GlobPattern("XCTest.XCTestSuite"), GlobPattern("XCTest.XCTestSuiteRun")]),
                reason: "XCTMain's root suite and its run reference each other strongly (`testRun` ⇄ `test`) "
                    + "and nothing references them once the tests have run, so every test case is held until "
                    + "exit. Once per process; not in the code under test.",
                library: Library(
                    name: "swift-corelibs-xctest",
                    ownReferences: [
                        OwnReference(path: "testRun", targetTypes: xctestRuns),
                        OwnReference(path: "test", sourceTypes: xctestRuns),
                    ])
            ),
            BaselineEntry(
                .types([GlobPattern("Foundation.Timer")]),
                reason: "a `Timer` made with a block retains itself for its `CFRunLoopTimer`'s context, which has no "
                    + "release callback, and `invalidate()` clears that pointer without releasing it: the `Timer` is "
                    + "never freed on Linux, nor what its block captures. Capture `[weak self]` in a `Timer`'s block.",
                library: Library(name: "swift-corelibs-foundation", everyMember: true)
            ),
        ]
    )

    /// Whether a reference with path text `path` from an object of `sourceType` to one of `targetType` is
    /// one of a known leaking library's own references (``Library/ownReferences``).
    public static func isOwnReference(path: String, sourceType: String, targetType: String) -> Bool {
        baseline.entries.contains { entry in
            entry.library?.ownReferences.contains { $0.matches(path: path, sourceType: sourceType, targetType: targetType) }
                == true
        }
    }

    /// The description of the known library leak a root cycle with these member types is, or `nil`: the
    /// first entry of the built-in ``baseline`` that matches them, as `known leak in LIBRARY: reason`.
    public static func match(memberTypes: some Sequence<String>) -> String? {
        let types = Array(memberTypes)
        for entry in baseline.entries {
            guard let library = entry.library, entry.matches(fingerprint: nil, memberTypes: types, memberBacktraces: { [] })
            else { continue }
            if library.everyMember, case .types(let patterns) = entry.rule,
                !types.allSatisfy({ type in patterns.contains { BaselineEntry.type(type, matches: $0) } })
            {
                continue
            }
            return "known leak in \(library.name): \(entry.reason ?? "")"
        }
        return nil
    }
}

extension Baseline {
    /// The built-in baseline of known library leaks (``KnownLibraryLeaks/baseline``), applied to every
    /// report as it is built.
    public static var builtIn: Baseline { KnownLibraryLeaks.baseline }
}
