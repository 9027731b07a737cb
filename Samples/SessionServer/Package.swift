// swift-tools-version: 6.1
import PackageDescription

// A server-like program for `leakgraph run --every`: a request loop over a session cache, with one
// route (`/export`) whose handler leaks. No dependencies: it is checked from the outside.
let package = Package(
    name: "SessionServer",
    products: [
        .executable(name: "SessionServer", targets: ["SessionServer"]),
    ],
    targets: [
        .executableTarget(name: "SessionServer"),
    ]
)
