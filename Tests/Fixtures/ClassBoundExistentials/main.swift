// Class-bound existentials hold the object pointer directly.
// - Registry.delegate: (any RegistryDelegate)? (RegistryDelegate: AnyObject) = screen; Screen.registry → Registry.
// - Cache.owner: AnyObject? = store; Store.cache → Cache.
// - Panel.listener: (any Named & Listener)? — a protocol composition, class-bound through Listener: AnyObject,
//   two witness tables after the pointer; Tab.panel → Panel.
// - Canvas.view: (View & RegistryDelegate)? — a class-constrained composition (superclass View); Sketch
//   (a View subclass) .canvas → Canvas.
// leak: 8 leaked objects — 4 root cycles of two.
// fixed: the forward references are `weak` (`weak var delegate`…) and a global keeps the owners alive —
// nothing leaks.

import Glibc

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

// MARK: - The shape

/// In the fixed variant the shapes stay alive, held by this global: a live reference must not look leaked.
var keptAlive: [AnyObject] = []

protocol RegistryDelegate: AnyObject {
    func registryChanged()
}

protocol Named {
    var name: String { get }
}

protocol Listener: AnyObject {
    func heard()
}

final class Registry {
    var delegate: (any RegistryDelegate)?
    weak var weakDelegate: (any RegistryDelegate)?
}

final class Screen: RegistryDelegate {
    var registry: Registry?
    func registryChanged() {}
}

final class Cache {
    var owner: AnyObject?
    weak var weakOwner: AnyObject?
}

final class Store {
    var cache: Cache?
}

final class Panel {
    var listener: (any Named & Listener)?
    weak var weakListener: (any Named & Listener)?
}

final class Tab: Named, Listener {
    var panel: Panel?
    var name: String { "tab" }
    func heard() {}
}

class View {
    var tag = 0
}

final class Sketch: View, RegistryDelegate {
    var canvas: Canvas?
    func registryChanged() {}
}

final class Canvas {
    var view: (View & RegistryDelegate)?
    weak var weakView: (View & RegistryDelegate)?
}

@inline(never)
func makeRegistry() {
    let registry = Registry()
    let screen = Screen()
    watch(registry)
    watch(screen)
    screen.registry = registry
    switch mode {
    case .leak: registry.delegate = screen  // store: leak Registry.delegate
    case .fixed:
        registry.weakDelegate = screen
        keptAlive.append(screen)
    }
}

@inline(never)
func makeCache() {
    let cache = Cache()
    let store = Store()
    watch(cache)
    watch(store)
    store.cache = cache
    switch mode {
    case .leak: cache.owner = store  // store: leak Cache.owner
    case .fixed:
        cache.weakOwner = store
        keptAlive.append(store)
    }
}

@inline(never)
func makePanel() {
    let panel = Panel()
    let tab = Tab()
    watch(panel)
    watch(tab)
    tab.panel = panel
    switch mode {
    case .leak: panel.listener = tab  // store: leak Panel.listener
    case .fixed:
        panel.weakListener = tab
        keptAlive.append(tab)
    }
}

@inline(never)
func makeCanvas() {
    let canvas = Canvas()
    let sketch = Sketch()
    watch(canvas)
    watch(sketch)
    sketch.canvas = canvas  // store: leak Sketch.canvas
    switch mode {
    case .leak: canvas.view = sketch
    case .fixed:
        canvas.weakView = sketch
        keptAlive.append(sketch)
    }
}

makeRegistry()
makeCache()
makePanel()
makeCanvas()
finish(expectingAlive: 8)
