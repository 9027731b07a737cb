/// A shell-style wildcard pattern over a whole string, as baseline files write type names and creation
/// sites: `*` stands for any run of characters (also none, also `.` and `/`), `?` for exactly one; every
/// other character stands for itself. `MyApp.ImageCache*` matches `MyApp.ImageCache` and
/// `MyApp.ImageCacheEntry`, not `MyApp.Images`.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    /// The pattern's characters.
    private let characters: [Character]

    /// Creates a pattern from its text.
    public init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    /// The pattern as written.
    public var description: String { text }

    /// Whether the pattern matches all of `candidate`.
    ///
    /// Iterative, with one step back to the last `*`: no recursion, whatever the pattern.
    /// - Complexity: O(*p* × *c*) in the worst case for a pattern of *p* and a candidate of *c* characters.
    public func matches(_ candidate: String) -> Bool {
        let text = Array(candidate)
        var p = 0
        var t = 0
        var starAt: Int?
        var resumeAt = 0
        while t < text.count {
            if p < characters.count, characters[p] == "*" {
                starAt = p
                resumeAt = t
                p += 1
            } else if p < characters.count, characters[p] == "?" || characters[p] == text[t] {
                p += 1
                t += 1
            } else if let star = starAt {
                p = star + 1
                resumeAt += 1
                t = resumeAt
            } else {
                return false
            }
        }
        while p < characters.count, characters[p] == "*" { p += 1 }
        return p == characters.count
    }

    /// Whether the pattern matches `path` or one of its trailing parts after a `/`: `ThirdPartySDK/*`
    /// matches `/src/ThirdPartySDK/Client.swift`, `main.swift` matches `/src/App/main.swift`.
    public func matches(pathSuffixOf path: String) -> Bool {
        if matches(path) { return true }
        var rest = Substring(path)
        while let slash = rest.firstIndex(of: "/") {
            rest = rest[rest.index(after: slash)...]
            if matches(String(rest)) { return true }
        }
        return false
    }
}
