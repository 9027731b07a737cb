// In-process recording must never crash: the program links LeakGraph, starts recording itself and
// checks five times, while Foundation frees CoreFoundation temporaries with plain free() (URL → NSURL
// bridging) and failed throwing initializers free their existential boxes directly — between the
// checks and while the checks' own Swift code runs. Before frees were intercepted in-process this
// died with SIGSEGV in swift_isDeallocating (under the zombie sweep) in 2 runs of 3.
//
// Prints one line per check: the leaked objects by type. Every line must be the same: three
// Bookmark ⇄ Folder cycles, each holding its URL's storage (_SwiftURL, URLParseInfo, the string):
// 15 objects.

import Foundation
import LeakGraph

final class Tag {}

final class Bookmark {
    var url: URL
    var folder: Folder?
    init(url: URL) { self.url = url }
}

final class Folder {
    var bookmark: Bookmark?
}

struct ValidationFailure: Error {}

protocol Loadable {
    init(failing: Bool) throws
}

/// Four words: too large for an existential's inline buffer, so `any Loadable` is boxed.
struct Options: Loadable {
    var verbose = 1, count = 2, depth = 3, width = 4
    init(failing: Bool) throws {
        if failing { throw ValidationFailure() }
    }
}

@inline(never)
func isTag(_ value: Any) -> Bool {
    value as? Tag != nil
}

@inline(never)
func validate(_ type: any Loadable.Type) -> Bool {
    do {
        let value: any Loadable = try type.init(failing: true)
        return value is Options
    } catch {
        return false
    }
}

/// URL → NSURL bridging (CoreFoundation's temporary CFURL, freed with plain free()) and failed boxed
/// initializations (the box freed with swift_slowDealloc), with allocations in between that reuse
/// the freed memory.
@inline(never)
func churn(_ round: Int) -> Int {
    var hits = 0
    var names: [String] = []
    for index in 0..<200 {
        let url = URL(string: "http://example.com/\(round)/\(index)")!
        if isTag(url) { hits += 1 }
        if let nsURL = NSURL(string: "http://example.com/\(round)/\(index)/direct"), nsURL.port != nil { hits += 1 }
        if validate(Options.self) { hits += 1 }
        names.append("bookmark \(index) of round \(round) with a reasonably long name")
    }
    return hits + names.count
}

/// Never set: storing into it (conditionally) keeps -O from proving the cycle unobservable and
/// removing its allocations.
nonisolated(unsafe) var escape: [AnyObject]? = getenv("FIXTURE_NEVER_SET") != nil ? [] : nil

@inline(never)
func makeCycle(_ index: Int) {
    let bookmark = Bookmark(url: URL(string: "http://example.com/cycle/\(index)")!)
    let folder = Folder()
    escape?.append(bookmark)
    escape?.append(folder)
    bookmark.folder = folder
    folder.bookmark = bookmark
}

do {
    try LeakChecker.startRecording()
} catch {
    print("recording could not start: \(error)")
    exit(70)
}
var total = churn(0)
for index in 0..<3 {
    makeCycle(index)
}
for check in 1...5 {
    total += churn(check)
    let report = LeakChecker.check()
    let counts = Dictionary(report.leaks.map { ($0.type, 1) }, uniquingKeysWith: +)
        .sorted { $0.key < $1.key }
        .map { "\($0.key)=\($0.value)" }
    print("check \(check): \(report.summary.leakedObjects) leaked in \(report.summary.rootCycles) root cycles: \(counts.joined(separator: " "))")
}
print("churned \(total)")
