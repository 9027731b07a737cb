// swift-tools-version: 6.1
import PackageDescription

// The linked ring from the Mac & i article on Swift memory leaks: ten `DummyObject`s whose last `next`
// points back to the first. Run it under `leakgraph run` to see the ring reported as one root cycle.
let package = Package(
    name: "LinkedRing",
    products: [
        .executable(name: "LinkedRing", targets: ["LinkedRing"]),
    ],
    targets: [
        .executableTarget(name: "LinkedRing"),
    ]
)
