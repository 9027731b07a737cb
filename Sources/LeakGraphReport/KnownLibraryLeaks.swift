import LeakGraphModel
import Synchronization

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
        /// When set, the entry matches a cycle only when the library's references close every loop of it:
        /// with these references left out, its members form no cycle. A cycle of the library's that the
        /// checked code's objects are part of (the test case XCTest's `measure {}` keeps) matches; one the
        /// code closes itself as well (a closure of the test case capturing it) is the code's own.
        public var cycleReferences: [OwnReference]?

        /// Creates a library description.
        public init(
            name: String, ownReferences: [OwnReference] = [], everyMember: Bool = false,
            cycleReferences: [OwnReference]? = nil
        ) {
            self.name = name
            self.ownReferences = ownReferences
            self.everyMember = everyMember
            self.cycleReferences = cycleReferences
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

        /// Whether a reference at `path` from an object of `sourceType` to one of `targetType` is this
        /// library reference: its text or its property's name (``ReferencePath/propertyName``: `delegate`
        /// for `delegate (XCTest.XCTestCase)`, an existential's value) is ``path``.
        public func matches(path reference: ReferencePath, sourceType: String, targetType: String) -> Bool {
            (reference.text == path || reference.propertyName == path)
                && sourceTypes.map { $0.contains(sourceType) } != false
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
            BaselineEntry(
                .types([GlobPattern("XCTest.PerformanceMeter")]),
                reason: "a test case that calls `measure {}` keeps its `PerformanceMeter` (`_performanceMeter`, never "
                    + "cleared) and the meter keeps the test case as its `delegate` (a `let`), as does the test case's "
                    + "run (`testRun` ⇄ `test`): every performance test case is a cycle until exit. Not in the code under test.",
                library: Library(
                    name: "swift-corelibs-xctest",
                    cycleReferences: [
                        OwnReference(path: "_performanceMeter", targetTypes: ["XCTest.PerformanceMeter"]),
                        OwnReference(path: "delegate", sourceTypes: ["XCTest.PerformanceMeter"]),
                        OwnReference(path: "testRun", targetTypes: xctestRuns),
                        OwnReference(path: "test", sourceTypes: xctestRuns),
                    ])
            ),
        ]
    )

    /// A strong reference between two members of a root cycle, for ``match(memberTypes:references:)``.
    public struct CycleReference: Sendable, Hashable {
        /// The positions of its source and target in the member list.
        public var from: Int
        public var to: Int
        /// Where it is stored in its source.
        public var path: ReferencePath

        /// Creates a reference.
        public init(from: Int, to: Int, path: ReferencePath) {
            self.from = from
            self.to = to
            self.path = path
        }
    }

    /// The positions of the ``baseline`` entries whose types match a root cycle with `types` as members,
    /// in order: each asked once per list of types (a leak that repeats has the same types every time,
    /// and a monitor's every check reports every leak still there), then remembered — up to
    /// ``typeMatchesKept`` lists, after which the memory starts over.
    private static func entries(matchingTypes types: [String]) -> [Int] {
        if let known = typeMatches.withLock({ $0[types] }) { return known }
        let found = baseline.entries.indices.filter { index in
            let entry = baseline.entries[index]
            guard let library = entry.library,
                entry.matches(fingerprint: nil, memberTypes: types, memberBacktraces: { [] })
            else { return false }
            if library.everyMember, case .types(let patterns) = entry.rule {
                return types.allSatisfy { type in patterns.contains { BaselineEntry.type(type, matches: $0) } }
            }
            return true
        }
        typeMatches.withLock { matches in
            if matches.count >= typeMatchesKept { matches.removeAll(keepingCapacity: true) }
            matches[types] = found
        }
        return found
    }

    /// How many lists of member types ``entries(matchingTypes:)`` remembers at most.
    static let typeMatchesKept = 4096
    private static let typeMatches = Mutex<[[String]: [Int]]>([:])

    /// Whether a reference with path text `path` from an object of `sourceType` to one of `targetType` is
    /// one of a known leaking library's own references (``Library/ownReferences``).
    public static func isOwnReference(path: ReferencePath, sourceType: String, targetType: String) -> Bool {
        baseline.entries.contains { entry in
            entry.library?.ownReferences.contains {
                $0.matches(path: path, sourceType: sourceType, targetType: targetType)
            }
                == true
        }
    }

    /// The description of the known library leak a root cycle with these member types is, or `nil`: the
    /// first entry of the built-in ``baseline`` that matches them, as `known leak in LIBRARY: reason`.
    ///
    /// - Parameter references: The strong references among the members (positions in `memberTypes`),
    ///   asked only for an entry with ``Library/cycleReferences`` whose types match: it matches only when
    ///   they show that the library's references close every loop. `nil`: such an entry never matches.
    public static func match(memberTypes: some Sequence<String>, references: (() -> [CycleReference])? = nil) -> String?
    {
        let types = Array(memberTypes)
        for index in entries(matchingTypes: types) {
            let entry = baseline.entries[index]
            guard let library = entry.library else { continue }
            if let own = library.cycleReferences {
                guard let references else { continue }
                let rest = references().filter { reference in
                    !own.contains {
                        $0.matches(
                            path: reference.path, sourceType: types[reference.from], targetType: types[reference.to])
                    }
                }
                guard !hasCycle(nodes: types.count, references: rest) else { continue }
            }
            return "known leak in \(library.name): \(entry.reason ?? "")"
        }
        return nil
    }

    /// Whether `references` among `nodes` nodes contain a cycle (a self-reference counts).
    ///
    /// - Complexity: O(*n* + *e*), iterative.
    static func hasCycle(nodes: Int, references: [CycleReference]) -> Bool {
        var successors = [[Int]](repeating: [], count: nodes)
        for reference in references where (0..<nodes).contains(reference.from) && (0..<nodes).contains(reference.to) {
            if reference.from == reference.to { return true }
            successors[reference.from].append(reference.to)
        }
        // Depth-first, colouring: 0 unvisited, 1 on the stack, 2 done.
        var colour = [UInt8](repeating: 0, count: nodes)
        for start in 0..<nodes where colour[start] == 0 {
            var stack: [(node: Int, next: Int)] = [(start, 0)]
            colour[start] = 1
            while let top = stack.last {
                if top.next < successors[top.node].count {
                    stack[stack.count - 1].next += 1
                    let target = successors[top.node][top.next]
                    if colour[target] == 1 { return true }
                    if colour[target] == 0 {
                        colour[target] = 1
                        stack.append((target, 0))
                    }
                } else {
                    colour[top.node] = 2
                    stack.removeLast()
                }
            }
        }
        return false
    }
}

extension Baseline {
    /// The built-in baseline of known library leaks (``KnownLibraryLeaks/baseline``), applied to every
    /// report as it is built.
    public static var builtIn: Baseline { KnownLibraryLeaks.baseline }
}
