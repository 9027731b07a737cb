/// One line of a baseline: which root cycles it accepts, and why.
///
/// A user's entry accepts a root cycle **with everything it holds** (its held objects and held cycles
/// leak only because of it). A built-in entry for a known library leak (``library``) excuses only the
/// cycle itself: the cycles among what it holds are the checked code's own and are reported on their own
/// (`heldByKnownLibraryLeak`).
public struct BaselineEntry: Sendable, Hashable {
    /// What a root cycle must be for the entry to accept it.
    public enum Rule: Sendable, Hashable {
        /// The cycle's fingerprint is this one (16 lowercase hexadecimal digits).
        case fingerprint(String)
        /// For each pattern, one of the cycle's members has a type it matches (the full name, or the name
        /// without its leading module: `ImageCache*` matches `MyApp.ImageCache`). A file's `type:` line
        /// holds one pattern; the built-in entries may need several member types at once.
        case types([GlobPattern])
        /// One of the members was created where the pattern says: a frame of its creation backtrace whose
        /// demangled function matches it, or whose file matches it or one of its trailing parts after a
        /// `/` (`ThirdPartySDK/*` matches `/src/ThirdPartySDK/Client.swift`).
        case site(GlobPattern)
    }

    /// What the entry accepts.
    public var rule: Rule
    /// Why it is accepted, as written after `#` on its line; `nil` when the line says nothing.
    public var reason: String?
    /// The entry's line in its file (1-based); `nil` for entries not read from a file.
    public var line: Int?
    /// Set for the built-in entries of known library leaks: the library, and its own references.
    public var library: KnownLibraryLeaks.Library?

    /// Creates an entry.
    public init(_ rule: Rule, reason: String? = nil, line: Int? = nil, library: KnownLibraryLeaks.Library? = nil) {
        self.rule = rule
        self.reason = reason
        self.line = line
        self.library = library
    }

    /// The entry as a baseline file writes it, without its reason: `fingerprint: 43a685ad0b19f2ad`,
    /// `type: MyApp.ImageCache*`, `site: ThirdPartySDK/*` (several member types are joined by ` & `).
    public var text: String {
        switch rule {
        case .fingerprint(let fingerprint): "fingerprint: \(fingerprint)"
        case .types(let patterns): patterns.map { "type: \($0.text)" }.joined(separator: " & ")
        case .site(let pattern): "site: \(pattern.text)"
        }
    }

    /// Whether the entry accepts a root cycle with this fingerprint and these members.
    ///
    /// - Parameters:
    ///   - fingerprint: The cycle's fingerprint, if it has one.
    ///   - memberTypes: The members' full type names.
    ///   - memberBacktraces: The members' creation backtraces; called only for a `site` rule.
    public func matches(
        fingerprint: String?, memberTypes: some Collection<String>, memberBacktraces: () -> [[LeakReport.Frame]]
    ) -> Bool {
        switch rule {
        case .fingerprint(let expected):
            return fingerprint == expected
        case .types(let patterns):
            return patterns.allSatisfy { pattern in memberTypes.contains { Self.type($0, matches: pattern) } }
        case .site(let pattern):
            return memberBacktraces().contains { frames in
                frames.contains { frame in
                    pattern.matches(frame.function) || frame.file.map { pattern.matches(pathSuffixOf: $0) } == true
                }
            }
        }
    }

    /// Whether `pattern` matches the type name `type`, or `type` without its leading module
    /// (`MyApp.ImageCache` → `ImageCache`).
    static func type(_ type: String, matches pattern: GlobPattern) -> Bool {
        if pattern.matches(type) { return true }
        guard let dot = type.firstIndex(of: "."), !type[..<dot].contains(where: { "<([ ".contains($0) }) else {
            return false
        }
        return pattern.matches(String(type[type.index(after: dot)...]))
    }
}
