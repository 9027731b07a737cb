/// Ranges the bikes' beacons (CLLocationManager's beacon ranging) and reports distances by serial.
final class ProximityMonitor {
    private(set) var ranges: [String: Double] = [:]
    /// Called with the new ranges after each scan.
    var onUpdate: (([String: Double]) -> Void)?

    /// One scan: a made-up distance per serial.
    func scan(serials: [String]) {
        for (index, serial) in serials.enumerated() {
            ranges[serial] = 1.5 + Double(index) * 4
        }
        onUpdate?(ranges)
    }
}
