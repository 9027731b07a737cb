/// How property names read: split into words, and whether they name a back-reference (suspect rule 1).
///
/// These functions read property *names* (``LeakGraphModel/ReferencePath/propertyName``), never labels.
enum BackReferenceNames {
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
    static func rank(_ name: String) -> Int? {
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
