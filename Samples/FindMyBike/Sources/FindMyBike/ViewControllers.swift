/// The base class of the app's screens: observes the app lifecycle events while the screen is visible.
class AppEventViewController {
    let title: String
    private var observations: [AppEventObservation] = []
    private(set) var backgroundEvents = 0

    init(title: String) {
        self.title = title
    }

    deinit {
        freedViewControllers += 1
    }

    func viewWillAppear() {
        // The closure captures the controller: it stays alive until `viewDidDisappear` removes it.
        observations.append(AppEventCenter.shared.addObserver(for: .didEnterBackground) { self.appDidEnterBackground() })
    }

    /// Subclasses that override this must call `super.viewDidDisappear()`, or the observer stays.
    func viewDidDisappear() {
        for observation in observations {
            AppEventCenter.shared.removeObserver(observation)
        }
        observations = []
    }

    func appDidEnterBackground() {
        backgroundEvents += 1
    }
}

/// The first screen: the list of bikes, the ranging table and the editor it presents.
final class MainViewController: AppEventViewController, BikeChangedDelegate {
    let registry: BikeRegistry
    let ranging: RangingTableViewController
    private(set) var presented: EditBikeViewController?
    private(set) var changes = 0

    init(registry: BikeRegistry) {
        self.registry = registry
        ranging = RangingTableViewController(registry: registry, monitor: ProximityMonitor())
        super.init(title: "My Bikes")
    }

    func viewDidLoad() {
        registry.setDelegate(self)
    }

    func showEditor(for bike: Bike) -> EditBikeViewController {
        let editor = EditBikeViewController(bike: bike, registry: registry)
        presented = editor
        editor.viewWillAppear()
        return editor
    }

    func dismissEditor() {
        presented?.viewDidDisappear()
        presented = nil
    }

    func bikeRegistry(_ registry: BikeRegistry, didChange bike: Bike) {
        changes += 1
        ranging.reload()
    }
}

/// The table of bikes sorted by distance, fed by the proximity monitor.
final class RangingTableViewController: AppEventViewController {
    let registry: BikeRegistry
    let monitor: ProximityMonitor
    private(set) var rows: [Bike] = []

    init(registry: BikeRegistry, monitor: ProximityMonitor) {
        self.registry = registry
        self.monitor = monitor
        super.init(title: "Nearby")
    }

    func startRanging() {
        // Done right: the monitor's callback captures the controller weakly.
        monitor.onUpdate = { [weak self] ranges in self?.update(ranges) }
        monitor.scan(serials: registry.bikes.map(\.serial))
    }

    func update(_ ranges: [String: Double]) {
        for bike in registry.bikes {
            bike.range = ranges[bike.serial]
        }
        reload()
    }

    func reload() {
        rows = registry.bikes.sorted { ($0.range ?? .infinity) < ($1.range ?? .infinity) }
    }
}

/// Edits one bike's name; saves when it disappears.
final class EditBikeViewController: AppEventViewController {
    let bike: Bike
    weak var registry: BikeRegistry?
    var draftName: String

    init(bike: Bike, registry: BikeRegistry) {
        self.bike = bike
        self.registry = registry
        draftName = bike.name
        super.init(title: "Edit \(bike.name)")
    }

    override func viewDidDisappear() {
        registry?.rename(bike, to: draftName)
        if mode == .fixed {
            // THE FIX for the observer never removed: one line, the call to super that removes it.
            super.viewDidDisappear()
        }
    }
}
