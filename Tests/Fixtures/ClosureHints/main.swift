// Fix hints that compile where they are written (issue: `[weak self]` offered for a closure that
// captures no `self`, or whose `self` is a struct). Each mode leaks one Editor ⇄ closure cycle whose
// closure also captures a Stamp (so it has a context object of its own, made where it is formed):
// method: formed in a method of Editor — the hint is `[weak self]`.
// freeFunction: formed in a free function capturing the editor — no `[weak self]` (there is no self).
// structMethod: formed in a method of a struct that holds the editor — no `[weak self]` (self is a struct).
// fixed: each closure captures the editor weakly — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case method, freeFunction, structMethod, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shapes

final class Stamp {
    let text = "saved"
}

final class Editor {
    var onSave: (() -> Void)?
    var saved: [String] = []

    @inline(never)
    func installSaving(_ stamp: Stamp) {
        onSave = { self.saved.append(stamp.text) }
    }

    @inline(never)
    func installWeakly(_ stamp: Stamp) {
        onSave = { [weak self] in self?.saved.append(stamp.text) }
    }
}

@inline(never)
func wire(editor: Editor, stamp: Stamp) {
    editor.onSave = { editor.saved.append(stamp.text) }
}

@inline(never)
func wireWeakly(editor: Editor, stamp: Stamp) {
    editor.onSave = { [weak editor] in editor?.saved.append(stamp.text) }
}

struct Binder {
    let editor: Editor
    let stamp: Stamp

    @inline(never)
    func bind() {
        editor.onSave = { self.editor.saved.append(self.stamp.text) }
    }
}

@inline(never)
func makeEditor() {
    let editor = Editor()
    let stamp = Stamp()
    watch(editor)
    switch mode {
    case .method: editor.installSaving(stamp)
    case .freeFunction: wire(editor: editor, stamp: stamp)
    case .structMethod: Binder(editor: editor, stamp: stamp).bind()
    case .fixed:
        editor.installWeakly(stamp)
        wireWeakly(editor: editor, stamp: stamp)
    }
    if checking { editor.onSave?() }
}

makeEditor()
finish(expectingAlive: mode == .fixed ? 0 : 1)
