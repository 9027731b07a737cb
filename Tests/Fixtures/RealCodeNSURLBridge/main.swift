// Found running the Yams 6.2.2 test suite (EncoderTests.testInterceptURL and others): `leakgraph run`
// crashed the program (SIGSEGV in swift_isDeallocating from lg_is_dead, or glibc's "malloc(): unsorted
// double linked list corrupted" abort).
//
// Cause: on Linux, bridging a URL to NSURL (`url as? SomeClass`, `url as AnyObject`,
// `url._bridgeToObjectiveC()`, `NSURL(string:)`) runs CoreFoundation's `_CFURLInitWithURLString`
// (also `_CFURLInitAbsoluteURLWithBytes`, `_CFURLInitWithFileSystemPathRelativeToBase`, CFURL.c). It
// makes a *temporary* CFURL with `_CFRuntimeCreateInstance`, which allocates it with `swift_allocObject`
// (class NSURL, so LeakGraph records it and takes its unowned retain), copies the fields into the real
// NSURL, and then frees the temporary with `CFAllocatorDeallocate` — plain `free()`, bypassing
// `swift_release`/`swift_deallocObject` and so LeakGraph's unowned retain. The record keeps the dangling
// address; malloc hands the memory to the next allocation; the next sweep reads that memory's word at +8
// as a refcount and dereferences a garbage side-table pointer, or `swift_unownedRelease`s it and
// corrupts the heap.
//
// leak: every iteration bridges a URL to NSURL; then a Bookmark ⇄ Folder cycle — 1 root cycle
//       (Bookmark, Folder) holding the bookmark's URL storage (`url._url` → FoundationEssentials._SwiftURL
//       → `_parseInfo` → URLParseInfo): 4 leaked objects; and the program must exit normally.
// fixed: the same bridging; Folder.bookmark is weak — nothing leaks, and no crash.
// Without `leakgraph run` both modes run fine (plain, or under valgrind).

import Foundation

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Tag {}

final class Bookmark {
    var url: URL
    var folder: Folder?
    init(url: URL) { self.url = url }
}

final class Folder {
    var bookmark: Bookmark?
    weak var weakBookmark: Bookmark?
}

/// What Yams' encoder does with every value: a conditional cast to a class. For a URL the runtime bridges
/// it to a new NSURL first (URL → NSURL → `_CFURLInitWithURLString`).
@inline(never)
func isTag(_ value: Any) -> Bool {
    value as? Tag != nil
}

@inline(never)
func bridgeURLs() -> Int {
    var tags = 0
    var names: [String] = []
    for index in 0..<200 {
        let url = URL(string: "http://example.com/\(index)")!
        if isTag(url) { tags += 1 }
        // The same temporary, made directly.
        if let nsURL = NSURL(string: "http://example.com/\(index)/direct"), nsURL.port != nil { tags += 1 }
        // Allocations after the temporary was freed, so malloc reuses its memory.
        names.append("bookmark \(index) of a folder with a reasonably long name")
    }
    return tags + names.count
}

@inline(never)
func makeBookmark() {
    let bookmark = Bookmark(url: URL(string: "http://example.com")!)
    let folder = Folder()
    watch(bookmark)
    watch(folder)
    bookmark.folder = folder
    switch mode {
    case .leak: folder.bookmark = bookmark  // store: leak Folder.bookmark
    case .fixed: folder.weakBookmark = bookmark
    }
}

let bridged = bridgeURLs()
makeBookmark()
_ = bridgeURLs()
if checking { print("bridged \(bridged)") }
finish(expectingAlive: mode == .leak ? 2 : 0)
