// NSObject subclasses (swift-corelibs-foundation on Linux) and a class hierarchy
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

// MARK: - Fixture plumbing: parseMode, watch and finish come from Tests/Fixtures/Support/FixturePlumbing.swift

enum Mode: String, CaseIterable { case leak, fixed }

let mode = parseMode(Mode.self)

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
    case .leak: registry.delegate = controller  // store: leak BikeRegistry.delegate
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
    subscription.observer = observer  // store: leak Subscription.observer
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
    case .leak: encoder.exporter = exporter  // store: leak ReportEncoder.exporter
    case .fixed:
        encoder.weakExporter = exporter
        keptAlive.append(exporter)
    }
}

makeBikes()
makeObserver()
makeExporter()
finish(expectingAlive: 6)
