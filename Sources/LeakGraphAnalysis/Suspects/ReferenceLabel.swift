/// Reads the labels the heap walk gives references (`delegate`, `meta.owner`, `[3].parent`,
/// `handler (closure)`, `delegate (App.Box, boxed)`, `state (.connected).conn`).
enum ReferenceLabel {
    /// The suffix the walk appends to the label of a closure's context reference.
    static let closureSuffix = " (closure)"

    /// Whether the label names a stored closure (its context reference).
    static func isClosure(_ label: String) -> Bool {
        label.hasSuffix(closureSuffix)
    }

    /// The stored property that holds the reference: the label without parenthesized notes, its last
    /// dotted component, without subscripts. `meta.owner` → `owner`, `handler (closure)` → `handler`,
    /// `[3].parent` → `parent`, `state (.connected).conn` → `conn`, `[3]` → empty.
    ///
    /// - Complexity: O(length of the label).
    static func propertyName(_ label: String) -> String {
        var plain = ""
        var depth = 0
        for character in label {
            switch character {
            case "(":
                depth += 1
            case ")":
                depth = max(0, depth - 1)
            default:
                if depth == 0 { plain.append(character) }
            }
        }
        let last = plain.split(separator: ".", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        let name = last.prefix { $0 != "[" }
        return name.trimmingSpaces()
    }

    /// The words of an identifier, lowercased: split at `_`, at a lowercase letter or digit followed by an
    /// uppercase one, and before the last capital of a run followed by a lowercase letter.
    /// `bikeChangedDelegate` → `bike`, `changed`, `delegate`; `URLSession` → `url`, `session`.
    static func words(_ identifier: String) -> [String] {
        let characters = Array(identifier)
        var words: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            if character == "_" || character == " " {
                if !current.isEmpty { words.append(current.lowercased()) }
                current = ""
                continue
            }
            if character.isUppercase, let previous = current.last {
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) {
                    words.append(current.lowercased())
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current.lowercased()) }
        return words
    }

    /// How strongly a property name reads as a back-reference (lower is stronger), or `nil`.
    ///
    /// `2 × i` when the name's words end with ``SuspectReference/backReferenceWords``[i]; `2 × i + 1` when
    /// they start with it and it is `parent`, `owner` or `delegate`.
    static func backReferenceRank(_ name: String) -> Int? {
        let nameWords = words(name)
        guard !nameWords.isEmpty else { return nil }
        for (index, word) in backReferenceWordLists.enumerated() {
            if nameWords.count >= word.count, Array(nameWords.suffix(word.count)) == word {
                return 2 * index
            }
            if prefixWords.contains(word), nameWords.count > word.count, Array(nameWords.prefix(word.count)) == word {
                return 2 * index + 1
            }
        }
        return nil
    }

    /// ``SuspectReference/backReferenceWords`` split into lowercased words.
    private static let backReferenceWordLists = SuspectReference.backReferenceWords.map(words)

    /// The back-reference words that also count at the start of a name (`parentNode`, `ownerRef`).
    private static let prefixWords: Set<[String]> = [["parent"], ["owner"], ["delegate"]]
}

extension StringProtocol {
    /// The text without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> String {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return start < end ? String(self[start ..< end]) : ""
    }
}
