// swift-tools-version: 6.1
// A Hummingbird server for scripts/bench-server: measured plain and under `leakgraph run --every`.
// Not part of the LeakGraph package (its own folder, built by the script into .build-bench/server).
import PackageDescription

let package = Package(
    name: "ServerLoad",
    platforms: [.macOS(.v14)],
    dependencies: [.package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1")],
    targets: [
        .executableTarget(
            name: "ServerLoad", dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: [.unsafeFlags(["-g"])])
    ]
)
