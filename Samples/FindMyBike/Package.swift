// swift-tools-version: 6.1
import PackageDescription

// FindMyBike, modelled in plain Swift: view controllers, a bike registry with a `BikeChangedDelegate`,
// an app-event centre and a proximity monitor. `FindMyBike leak` keeps the two leaks such apps have (a
// strong delegate, an observer never removed); `FindMyBike fixed` has the one-line fix of each.
let package = Package(
    name: "FindMyBike",
    products: [
        .executable(name: "FindMyBike", targets: ["FindMyBike"]),
    ],
    targets: [
        .executableTarget(name: "FindMyBike"),
    ]
)
