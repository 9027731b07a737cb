// swift-tools-version: 6.1
import PackageDescription

// How a package adds leak checks to its tests: depend on LeakGraph, add `LeakGraphTesting` to the test
// targets, write one line (README, "Leak checks in your tests"). The library has two real retain
// cycles, each fixed when LEAKGRAPH_EXAMPLE_WIRING=fixed, so the tests fail with a leak trace — or pass.
let package = Package(
    name: "TestingExample",
    dependencies: [
        // `name:` fixes the package's name whatever the checkout's folder is called.
        .package(name: "LeakGraph", path: "../.."),
    ],
    targets: [
        .target(name: "Inbox"),
        .testTarget(
            name: "InboxXCTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: "LeakGraph")]),
        .testTarget(
            name: "InboxSwiftTestingTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: "LeakGraph")]),
        // Allocation budgets (`assertAllocations`, `.allocationBudget`); LEAKGRAPH_EXAMPLE_BUDGET=over
        // makes the renderer allocate twice as much.
        .testTarget(
            name: "BudgetXCTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: "LeakGraph")]),
        .testTarget(
            name: "BudgetSwiftTestingTests",
            dependencies: ["Inbox", .product(name: "LeakGraphTesting", package: "LeakGraph")]),
    ]
)
