// Issue 13, "every cut named": a root cycle that needs two references cut to free it. An `Editor`
// and its `Helper` point at each other (the helper's `editor` should be weak), and the editor's
// `onSave` closure captures the editor itself (it should capture `[weak self]`).
//
// leak:         both loops: one root cycle, whose report names both cuts (the suspect and one other).
// weakDelegate: only the helper's back reference is weak: the closure loop still leaks the editor
//               (a user who applied just one fix still leaks).
// fixed:        both cuts applied: nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, weakDelegate, fixed }

let mode = parseMode(Mode.self)

final class Helper {
    var editor: Editor?
    weak var weakEditor: Editor?
}

final class Editor {
    var title = "Untitled"
    var helper: Helper?
    var onSave: (() -> Void)?
    var saves = 0
}

@inline(never)
func makeEditor() -> Editor {
    let editor = Editor()
    let helper = Helper()
    editor.helper = helper
    if mode == .leak {
        helper.editor = editor  // store: leak Helper.editor
    } else {
        helper.weakEditor = editor
    }
    if mode == .fixed {
        editor.onSave = { [weak editor] in editor?.saves += 1 }
    } else {
        editor.onSave = { editor.saves += 1 }  // store: leak,weakDelegate Editor.onSave
    }
    watch(editor)
    watch(helper)
    return editor
}

@inline(never)
func escape(_ editor: Editor) -> Int {
    editor.onSave?()
    return editor.saves
}

let saved = escape(makeEditor())
finish(expectingAlive: mode == .fixed ? 0 : 2)
exit(saved == 1 ? 0 : 1)
