// Parent.children ⇄ child.parent through Array and ContiguousArray storage.
// - Parent.children: [Child] with three children, each child.parent → the parent.
// - Folder.files: ContiguousArray<File> with two files, each file.folder → the folder.
// leak: 9 leaked objects — 2 root cycles: {Parent, its array storage, 3 Child} and
// {Folder, its array storage, 2 File}.
// fixed: the back references are `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

final class Parent {
    var children: [Child] = []
}

final class Child {
    var parent: Parent?
    weak var weakParent: Parent?
}

final class Folder {
    var files: ContiguousArray<File> = []
}

final class File {
    var folder: Folder?
    weak var weakFolder: Folder?
}

@inline(never)
func makeFamily() {
    let parent = Parent()
    watch(parent)
    for _ in 0..<3 {
        let child = Child()
        watch(child)
        parent.children.append(child)
        switch mode {
        case .leak: child.parent = parent  // store: leak Child.parent
        case .fixed: child.weakParent = parent
        }
    }
}

@inline(never)
func makeFolder() {
    let folder = Folder()
    watch(folder)
    for _ in 0..<2 {
        let file = File()
        watch(file)
        folder.files.append(file)
        switch mode {
        case .leak: file.folder = folder  // store: leak File.folder
        case .fixed: file.weakFolder = folder
        }
    }
}

makeFamily()
makeFolder()
finish(expectingAlive: mode == .leak ? 7 : 0)
