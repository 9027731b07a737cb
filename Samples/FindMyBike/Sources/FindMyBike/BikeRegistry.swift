/// A registered bike.
final class Bike {
    let serial: String
    var name: String
    /// The last distance the proximity monitor measured, in metres.
    var range: Double?

    init(serial: String, name: String) {
        self.serial = serial
        self.name = name
    }
}

/// Told when a bike in the registry changes.
protocol BikeChangedDelegate: AnyObject {
    func bikeRegistry(_ registry: BikeRegistry, didChange bike: Bike)
}

/// The app's model service: the user's bikes, and a delegate told about every change.
final class BikeRegistry {
    private(set) var bikes: [Bike]

    /// THE LEAK: the registry holds its delegate strongly, and the delegate (the main view controller)
    /// holds the registry. The fix is one word: `weak var delegate: (any BikeChangedDelegate)?`.
    var delegate: (any BikeChangedDelegate)?
    /// Where `fixed` keeps the delegate instead: the same property, made weak.
    weak var weakDelegate: (any BikeChangedDelegate)?

    init(bikes: [Bike]) {
        self.bikes = bikes
    }

    /// Sets the delegate: strongly in `leak` mode, weakly (the fix) in `fixed` mode.
    func setDelegate(_ delegate: any BikeChangedDelegate) {
        if mode == .leak {
            self.delegate = delegate
        } else {
            weakDelegate = delegate
        }
    }

    func rename(_ bike: Bike, to name: String) {
        bike.name = name
        (delegate ?? weakDelegate)?.bikeRegistry(self, didChange: bike)
    }
}
