// Row 11 of LEAK-PATTERNS: parent.children ⇄ child.parent through Array and ContiguousArray storage.
// - Parent.children: [Child] with three children, each child.parent → the parent.
// - Folder.files: ContiguousArray<File> with two files, each file.folder → the folder.
// leak: 9 leaked objects — 2 root cycles: {Parent, its array storage, 3 Child} and
// {Folder, its array storage, 2 File}.
// fixed: the back references are `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing (the same in every fixture)
//
// The shape is built by an `@inline(never)` function that returns, so nothing of it is left on the stack,
// and main then returns normally: `leakgraph run` checks at exit.
// With FIXTURE_CHECK set, every object of the shape is also watched through a weak reference and main
// prints how many are still alive, exiting with 3 if that is not the expected number. It is off by
// default, so `leakgraph run` sees the plain shape; handing each object to `watch` also keeps -O from
// promoting the objects to the stack or removing them.

enum Mode: String { case leak, fixed }

let mode: Mode = {
    guard CommandLine.arguments.count == 2, let mode = Mode(rawValue: CommandLine.arguments[1]) else {
        print("usage: \(CommandLine.arguments[0]) leak|fixed")
        exit(64)
    }
    return mode
}()

struct WeakObject { weak var object: AnyObject? }
let checking = getenv("FIXTURE_CHECK") != nil
var watched: [WeakObject] = []

@inline(never)
func watch(_ object: AnyObject) {
    if checking { watched.append(WeakObject(object: object)) }
}

func finish(expectingAlive expected: Int) {
    guard checking else { return }
    let alive = watched.filter { $0.object != nil }.count
    print("fixture check: \(alive) of \(watched.count) watched objects alive, expected \(expected)")
    if alive != expected { exit(3) }
}

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
        case .leak: child.parent = parent
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
        case .leak: file.folder = folder
        case .fixed: file.weakFolder = folder
        }
    }
}

makeFamily()
makeFolder()
finish(expectingAlive: mode == .leak ? 7 : 0)
