// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A path dependency is named by its folder: `LeakGraph` in a user's checkout, whatever this repository's
// clone is called here. Your own package writes `package: "LeakGraph"` (or "leakgraph" from a URL).
let leakGraph = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent()
    .deletingLastPathComponent().standardizedFileURL.lastPathComponent

// How a package adds leak checks to its tests: depend on LeakGraph, add `LeakGraphTesting` to the test
// targets, write one line (README, "Leak checks in your tests"). The library has two real retain
// cycles, each fixed when LEAKGRAPH_EXAMPLE_WIRING=fixed, so the tests fail with a leak trace — or pass.
let package = Package(
    name: "TestingExample",
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        .target(name: "Inbox"),
        .testTarget(
            name: "InboxXCTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: leakGraph)]),
        .testTarget(
            name: "InboxSwiftTestingTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: leakGraph)]),
        // Allocation budgets (`assertAllocations`, `.allocationBudget`); LEAKGRAPH_EXAMPLE_BUDGET=over
        // makes the renderer allocate twice as much.
        .testTarget(
            name: "BudgetXCTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: leakGraph)]),
        .testTarget(
            name: "BudgetSwiftTestingTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: leakGraph)]),
    ]
)
