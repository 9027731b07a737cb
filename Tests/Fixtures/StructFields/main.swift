// Row 6 of LEAK-PATTERNS: strong references kept inside value types stored in a class.
// - Document.meta (struct Meta).owner → Editor; Editor.document → Document.
// - Window.layout (struct Layout).inner (struct Inner, nested).controller → Controller; Controller.window → Window.
// - Pipe.ends (a tuple (count: Int, sink: Sink?)).sink → Sink; Sink.pipe → Pipe.
// leak: 6 leaked objects, 3 root cycles of two.
// fixed: the class-side back references are `weak` — nothing leaks.

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
    case .leak: sink.pipe = pipe
    case .fixed: sink.weakPipe = pipe
    }
}

makeDocument()
makeWindow()
makePipe()
finish(expectingAlive: mode == .leak ? 6 : 0)
