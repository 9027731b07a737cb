// Strong references kept inside value types stored in a class.
// - Document.meta (struct Meta).owner → Editor; Editor.document → Document.
// - Window.layout (struct Layout).inner (struct Inner, nested).controller → Controller; Controller.window → Window.
// - Pipe.ends (a tuple (count: Int, sink: Sink?)).sink → Sink; Sink.pipe → Pipe.
// leak: 6 leaked objects, 3 root cycles of two.
// fixed: the class-side back references are `weak` — nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

struct Meta {
    var revision: Int
    var owner: Editor?
}

final class Document {
    var meta = Meta(revision: 1, owner: nil)
}

final class Editor {
    var document: Document?
    weak var weakDocument: Document?
}

struct Inner {
    var count: Int
    var controller: Controller?
}

struct Layout {
    var origin: (x: Int, y: Int)
    var inner: Inner
}

final class Window {
    var layout = Layout(origin: (0, 0), inner: Inner(count: 0, controller: nil))
}

final class Controller {
    var window: Window?
    weak var weakWindow: Window?
}

final class Pipe {
    var ends: (count: Int, sink: Sink?) = (0, nil)
}

final class Sink {
    var pipe: Pipe?
    weak var weakPipe: Pipe?
}

@inline(never)
func makeDocument() {
    let document = Document()
    let editor = Editor()
    watch(document)
    watch(editor)
    document.meta.owner = editor
    switch mode {
    case .leak: editor.document = document
    case .fixed: editor.weakDocument = document
    }
}

@inline(never)
func makeWindow() {
    let window = Window()
    let controller = Controller()
    watch(window)
    watch(controller)
    window.layout.inner.controller = controller
    switch mode {
    case .leak: controller.window = window
    case .fixed: controller.weakWindow = window
    }
}

@inline(never)
func makePipe() {
    let pipe = Pipe()
    let sink = Sink()
    watch(pipe)
    watch(sink)
    pipe.ends.sink = sink
    switch mode {
    case .leak: sink.pipe = pipe  // store: leak Sink.pipe
    case .fixed: sink.weakPipe = pipe
    }
}

makeDocument()
makeWindow()
makePipe()
finish(expectingAlive: mode == .leak ? 6 : 0)
