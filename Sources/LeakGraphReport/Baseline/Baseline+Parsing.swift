extension Baseline {
    /// Reads a baseline file's text.
    ///
    /// One item a line: blank lines and lines starting with `#` are comments; the first other line is
    /// `version: N`; every later one is an entry — `fingerprint: HEX`, `type: PATTERN` or
    /// `site: PATTERN` — optionally followed by ` # reason`: a `#` after white space starts the entry's
    /// reason. Keys are lowercase, a space after the colon is optional, white space around values is
    /// ignored. Fingerprints are 16 hexadecimal digits (read in lowercase). Lines may end with LF or CRLF;
    /// a leading byte-order mark is skipped.
    ///
    /// - Parameters:
    ///   - text: The file's contents.
    ///   - source: How the report names the file (its path as given).
    /// - Throws: ``BaselineError``: ``BaselineError/Code/missingVersion`` without a `version:` line before
    ///   the first entry, ``BaselineError/Code/unsupportedVersion`` for a version newer than
    ///   ``currentVersion`` or below 1, ``BaselineError/Code/malformedLine`` for anything else it cannot read.
    /// - Complexity: O(length of `text`).
    public static func parse(_ text: String, source: String) throws(BaselineError) -> Baseline {
        var version: Int?
        var entries: [BaselineEntry] = []
        var headerComments: [String] = []
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        for (offset, rawLine) in body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
        {
            let number = offset + 1
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                if version == nil { headerComments.append(String(line.dropFirst()).trimmingWhitespace()) }
                continue
            }
            let (body, reason) = splitReason(line)
            guard let colon = body.firstIndex(of: ":") else {
                throw BaselineError(
                    code: version == nil ? .missingVersion : .malformedLine, line: number,
                    message: version == nil
                        ? "not a LeakGraph baseline: the first line that is not a comment must be `version: \(currentVersion)`"
                        : "expected `fingerprint:`, `type:` or `site:` followed by a value, not `\(body)`")
            }
            let key = body[..<colon].trimmingWhitespace()
            let value = body[body.index(after: colon)...].trimmingWhitespace()
            guard version != nil else {
                guard key == "version" else {
                    throw BaselineError(
                        code: .missingVersion, line: number,
                        message:
                            "not a LeakGraph baseline: the first line that is not a comment must be `version: \(currentVersion)`, not `\(body)`"
                    )
                }
                version = try checkedVersion(value, line: number)
                continue
            }
            guard !value.isEmpty else {
                throw BaselineError(code: .malformedLine, line: number, message: "`\(key):` needs a value")
            }
            switch key {
            case "fingerprint":
                let lowercased = value.lowercased()
                guard lowercased.count == 16, lowercased.allSatisfy({ $0.isHexDigit }) else {
                    throw BaselineError(
                        code: .malformedLine, line: number,
                        message: "a fingerprint is 16 hexadecimal digits (as in a report), not `\(value)`")
                }
                entries.append(BaselineEntry(.fingerprint(lowercased), reason: reason, line: number))
            case "type":
                entries.append(BaselineEntry(.types([GlobPattern(value)]), reason: reason, line: number))
            case "site":
                entries.append(BaselineEntry(.site(GlobPattern(value)), reason: reason, line: number))
            case "version":
                throw BaselineError(code: .malformedLine, line: number, message: "a second `version:` line")
            default:
                throw BaselineError(
                    code: .malformedLine, line: number,
                    message: "unknown entry `\(key):`; expected `fingerprint:`, `type:` or `site:`")
            }
        }
        guard let version else {
            throw BaselineError(
                code: .missingVersion, line: nil,
                message: "not a LeakGraph baseline: it has no `version: \(currentVersion)` line")
        }
        return Baseline(version: version, source: source, entries: entries, headerComments: headerComments)
    }

    /// The version `value` says, when this build reads it.
    private static func checkedVersion(_ value: String, line: Int) throws(BaselineError) -> Int {
        guard let version = Int(value) else {
            throw BaselineError(
                code: .unsupportedVersion, line: line, message: "the version must be a whole number, not `\(value)`")
        }
        guard version <= currentVersion else {
            throw BaselineError(
                code: .unsupportedVersion, line: line,
                message: "the baseline has version \(version), written by a newer LeakGraph; this build reads "
                    + "version\(currentVersion == 1 ? "" : "s 1 through") \(currentVersion). Update LeakGraph to use it."
            )
        }
        guard version >= 1 else {
            throw BaselineError(
                code: .unsupportedVersion, line: line, message: "version \(version) does not exist; versions start at 1"
            )
        }
        return version
    }

    /// An entry line's text before its reason, and the reason: what follows the first `#` that comes
    /// after white space, trimmed (`nil` when there is none or it is empty).
    static func splitReason(_ line: String) -> (body: String, reason: String?) {
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            if character == "#", previous.isWhitespace {
                let reason = line[line.index(after: index)...].trimmingWhitespace()
                return (line[..<index].trimmingWhitespace(), reason.isEmpty ? nil : reason)
            }
            previous = character
        }
        return (line, nil)
    }
}

extension StringProtocol {
    /// The text without white space at either end.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else {
            return ""
        }
        return String(self[first...last])
    }
}
