/// A list of accepted leaks: root cycles a check reports but does not fail on.
///
/// Read from a baseline file (``parse(_:source:)``, format in docs/baselines.md), written with
/// ``text``, applied to a report with ``LeakReport/applying(_:)``. ``builtIn`` holds the known leaks
/// of libraries (``KnownLibraryLeaks``), applied to every report as it is built.
public struct Baseline: Sendable, Hashable {
    /// The format version of the file it was read from (``currentVersion`` for baselines made in memory).
    public var version: Int
    /// Where it came from, as the report names it: the file's path as given, or `built-in`.
    public var source: String
    /// The entries, in file order; the first that matches a cycle is the one the report names.
    public var entries: [BaselineEntry]
    /// The comment lines before the `version:` line, without their `#` (kept when the file is written again).
    public var headerComments: [String]

    /// The format version this library writes and the newest it reads.
    public static let currentVersion = 1

    /// Creates a baseline.
    public init(
        version: Int = Baseline.currentVersion, source: String, entries: [BaselineEntry], headerComments: [String] = []
    ) {
        self.version = version
        self.source = source
        self.entries = entries
        self.headerComments = headerComments
    }

    /// The first entry that accepts a root cycle with this fingerprint and these members, if any (see
    /// ``BaselineEntry/matches(fingerprint:memberTypes:memberBacktraces:)``).
    public func entry(
        matching fingerprint: String?, memberTypes: some Collection<String>,
        memberBacktraces: () -> [[LeakReport.Frame]] = { [] }
    ) -> BaselineEntry? {
        var backtraces: [[LeakReport.Frame]]?
        return entries.first { entry in
            entry.matches(fingerprint: fingerprint, memberTypes: memberTypes) {
                if let backtraces { return backtraces }
                let computed = memberBacktraces()
                backtraces = computed
                return computed
            }
        }
    }
}
