// Row 19 of LEAK-PATTERNS: NSObject subclasses (swift-corelibs-foundation on Linux) and a class hierarchy
// across modules.
// - MainViewController: NSObject, BikeChangedDelegate; BikeRegistry: NSObject with
//   `var delegate: (any BikeChangedDelegate)?` = the controller; MainViewController.registry → BikeRegistry.
// - Observer.token: (any NSObjectProtocol)? = a Subscription (NSObject); Subscription.observer → Observer.
// - ReportEncoder: JSONEncoder (a subclass of an open Foundation class, so its superclass's fields come from
//   another module) with `exporter: Exporter?`; Exporter.encoder → ReportEncoder.
// leak: 7 leaked objects — 3 root cycles {MainViewController, BikeRegistry}, {Observer, Subscription} and
// {Exporter, ReportEncoder} holding the encoder's options lock buffer (a FoundationEssentials.LockedState).
// fixed: `weak var delegate`, `weak var token`, `weak var exporter` and a global keeps the shapes alive —
// nothing leaks.

import Foundation
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

/// In the fixed variant the shapes stay alive, held by this global: a live object must not look leaked.
var keptAlive: [AnyObject] = []

protocol BikeChangedDelegate: AnyObject {
    func bikesChanged(_ registry: BikeRegistry)
}

final class BikeRegistry: NSObject {
    var bikeCount = 1
    var delegate: (any BikeChangedDelegate)?
    weak var weakDelegate: (any BikeChangedDelegate)?
}

final class MainViewController: NSObject, BikeChangedDelegate {
    let registry: BikeRegistry

    init(registry: BikeRegistry) {
        self.registry = registry
        super.init()
    }

    func bikesChanged(_ registry: BikeRegistry) {}
}

final class Subscription: NSObject {
    var observer: Observer?
}

final class Observer {
    var token: (any NSObjectProtocol)?
    weak var weakToken: (any NSObjectProtocol)?
}

final class ReportEncoder: JSONEncoder {
    var exporter: Exporter?
    weak var weakExporter: Exporter?
}

final class Exporter {
    var encoder: ReportEncoder?
}

@inline(never)
func makeBikes() {
    let registry = BikeRegistry()
    let controller = MainViewController(registry: registry)
    watch(registry)
    watch(controller)
    switch mode {
    case .leak: registry.delegate = controller
    case .fixed:
        registry.weakDelegate = controller
        keptAlive.append(controller)
    }
}

@inline(never)
func makeObserver() {
    let observer = Observer()
    let subscription = Subscription()
    watch(observer)
    watch(subscription)
    subscription.observer = observer
    switch mode {
    case .leak: observer.token = subscription
    case .fixed:
        observer.weakToken = subscription
        keptAlive.append(subscription)
    }
}

@inline(never)
func makeExporter() {
    let exporter = Exporter()
    let encoder = ReportEncoder()
    encoder.outputFormatting = .sortedKeys
    watch(exporter)
    watch(encoder)
    exporter.encoder = encoder
    switch mode {
    case .leak: encoder.exporter = exporter
    case .fixed:
        encoder.weakExporter = exporter
        keptAlive.append(exporter)
    }
}

makeBikes()
makeObserver()
makeExporter()
finish(expectingAlive: 6)
