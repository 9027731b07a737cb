// AllocationLoop: the small-live-set workload of scripts/bench — what a command-line tool or a test
// does: many short-lived objects (class instances, arrays, strings, dictionaries, closures) made and
// dropped in a loop, while the objects alive at any moment stay few (the last 64 results). No
// Foundation.
//
// Usage: AllocationLoop [ITERATIONS]   (default 2000000)

#if canImport(Glibc)
    import Glibc
#endif

final class Token {
    let kind: Int
    let text: String
    var children: [Token] = []

    init(kind: Int, text: String) {
        self.kind = kind
        self.text = text
    }
}

final class Summary {
    var counts: [Int: Int] = [:]
    var longest = ""
}

/// Parses one made-up line into a small tree of tokens and summarizes it.
@inline(never)
func parse(_ line: Int) -> Summary {
    let root = Token(kind: 0, text: "line \(line)")
    for index in 0..<6 {
        let word = Token(kind: 1 + index % 3, text: "word-\(line % 97)-\(index)")
        if index % 2 == 0 {
            word.children.append(Token(kind: 9, text: String(repeating: "x", count: 1 + index)))
        }
        root.children.append(word)
    }
    let summary = Summary()
    var visit: ((Token) -> Void)!
    visit = { token in
        summary.counts[token.kind, default: 0] += 1
        if token.text.utf8.count > summary.longest.utf8.count { summary.longest = token.text }
        token.children.forEach(visit)
    }
    visit(root)
    visit = nil
    return summary
}

let iterations = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2_000_000 : 2_000_000
var recent: [Summary?] = Array(repeating: nil, count: 64)
var total = 0
for line in 0..<iterations {
    let summary = parse(line)
    total &+= summary.counts.values.reduce(0, +) &+ summary.longest.utf8.count
    recent[line % recent.count] = summary
}
print("\(iterations) lines, \(total) tokens and characters")
