// Issue 8, found on OpenCombine: a struct with exactly one class field, stored in an Optional or as an
// enum payload, is laid out as that single pointer. The reference must still name the field:
// - Page.back: Link? where `struct Link { var owner: Doc }` → `back.owner`, fix `weak var owner`.
// - Sheet.slot: Slot = .held(Link2) → `slot (.held).owner`.
// - Note.pair: (Link3, Int)? (an Optional tuple) → `pair.0.owner`.
// leak: 6 leaked objects — 3 root cycles {Doc, Page}, {Doc2, Sheet}, {Doc3, Note}.
// fixed: the documents' references to their pages are dropped and globals keep the pages: nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

var keptAlive: [AnyObject] = []

struct Link { var owner: Doc }
final class Doc { var page: Page? }
final class Page { var back: Link? }

struct Link2 { var owner: Doc2 }
enum Slot {
    case held(Link2)
    case empty
}
final class Doc2 { var sheet: Sheet? }
final class Sheet { var slot: Slot = .empty }

struct Link3 { var owner: Doc3 }
final class Doc3 { var note: Note? }
final class Note { var pair: (Link3, Int)? }

@inline(never)
func makePage() {
    let doc = Doc()
    let page = Page()
    watch(doc)
    watch(page)
    page.back = Link(owner: doc)
    switch mode {
    case .leak: doc.page = page
    case .fixed: keptAlive.append(page)
    }
}

@inline(never)
func makeSheet() {
    let doc = Doc2()
    let sheet = Sheet()
    watch(doc)
    watch(sheet)
    sheet.slot = .held(Link2(owner: doc))
    switch mode {
    case .leak: doc.sheet = sheet
    case .fixed: keptAlive.append(sheet)
    }
}

@inline(never)
func makeNote() {
    let doc = Doc3()
    let note = Note()
    watch(doc)
    watch(note)
    note.pair = (Link3(owner: doc), 7)
    switch mode {
    case .leak: doc.note = note
    case .fixed: keptAlive.append(note)
    }
}

makePage()
makeSheet()
makeNote()
finish(expectingAlive: 6)
