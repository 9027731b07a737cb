// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency is named by its folder: `LeakGraph` in a user's checkout, whatever this repository's
// clone is called here. Your own package writes `package: "LeakGraph"` (or "leakgraph" from a URL).
let leakGraph = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().standardizedFileURL.lastPathComponent

// A server-like program for `leakgraph run --every`: a request loop over a session cache, with one
// route (`/export`) whose handler leaks. Run as it is, it is checked from the outside; with
// `--metrics-port`, it also serves its leak checks as Prometheus text at `/metrics` (LeakGraph's
// `LeakMonitor` and `LeakGraphMetrics`, swift-prometheus; no NIO: a POSIX socket).
let package = Package(
    name: "SessionServer",
    products: [
        .executable(name: "SessionServer", targets: ["SessionServer"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "SessionServer",
            dependencies: [
                .product(name: "LeakGraph", package: leakGraph),
                .product(name: "LeakGraphMetrics", package: leakGraph),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
    ]
)
