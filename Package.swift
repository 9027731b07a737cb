// swift-tools-version: 6.2
import PackageDescription

// Data flows one way, one target per stage (the same description as README.md and docs/architecture.md):
//
// hook → allocation records → heap walk → object graph → analysis → report values → renderers → adapters
//
// hook                CLeakGraphHook (C: the allocation hook, the record per live object, creation stacks,
//                     the holder scan), with CLeakGraphContract (C header: the preload contract)
// allocation records  LeakGraphRecording (the recorder, the frozen heap, allocation scopes)
// heap walk           LeakGraphHeap (references from type metadata), with CLeakGraphMetadata (C)
// object graph        LeakGraphModel (objects, references as typed paths, ownership, heap snapshots)
// analysis            LeakGraphAnalysis (roots, reachability, cycles, proof, suspects, dominators)
// report values       LeakGraphReport (the report value, its JSON, baselines, verdicts), LeakGraphSymbolication
//                     (through CLibDW), LeakGraphSnapshotFile (heap snapshot files, through CSQLite)
// renderers           LeakGraphRender (text, JUnit, SARIF, DOT, HTML, their naming and styles), LeakGraphGraphviz
//                     (DOT laid out as SVG, through CGraphviz), LeakGraphWeb (the snapshot browser, SwiftNIO)
// adapters            LeakGraph (façade), LeakGraphTesting, LeakGraphMetrics, LeakGraphService,
//                     CLeakGraphPreloadStart with LeakGraphPreloadChecker (what `leakgraph run` preloads),
//                     leakgraph (CLI, with CLeakGraphCLISignals), Plugins/LeakGraphCommand

let package = Package(
    name: "LeakGraph",
    products: [
        .executable(name: "leakgraph", targets: ["leakgraph"]),
        .library(name: "LeakGraph", targets: ["LeakGraph"]),
        // What `leakgraph run` preloads: the hook and the exit and signal plumbing, in C.
        .library(name: "LeakGraphPreload", type: .dynamic, targets: ["CLeakGraphPreloadStart"]),
        // What the preload loads beside it when a check runs: the checker, in Swift.
        .library(name: "LeakGraphPreloadChecker", type: .dynamic, targets: ["LeakGraphPreloadChecker"]),
        .library(name: "LeakGraphTesting", targets: ["LeakGraphTesting"]),
        .library(name: "LeakGraphTestObserver", type: .dynamic, targets: ["LeakGraphTestObserver"]),
        .library(name: "LeakGraphMetrics", targets: ["LeakGraphMetrics"]),
        .library(name: "LeakGraphService", targets: ["LeakGraphService"]),
        .plugin(name: "LeakGraphCommand", targets: ["LeakGraphCommand"]),
    ],
    traits: [
        // LeakGraphTesting writes an HTML report with graphs beside each failing check's JSON; this needs
        // Graphviz (libgraphviz-dev). A package that wants the leak trace alone depends on LeakGraph with
        // `traits: []` and does not build Graphviz.
        .trait(
            name: "HTMLReports",
            description: "LeakGraphTesting writes an HTML report with graphs for each failing check (needs libgraphviz-dev)."),
        .default(enabledTraits: ["HTMLReports"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Tests only: swift-collections' Deque and Rope buffers, whose element counts the walk reads.
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // HTTP for `leakgraph serve` (plain SwiftNIO: measured cheaper to build than Hummingbird).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation`: the DocC catalogs, checked by scripts/test.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Hook: the preload contract: environment names, report file suffixes, frame limits (one C header
        // read by the hook, the preload library and the CLI).
        .target(name: "CLeakGraphContract"),
        // Hook: the runtime hook, record table, free interception and stack capture (C).
        .target(
            name: "CLeakGraphHook",
            dependencies: ["CLeakGraphContract", "CLeakGraphMetadata"],
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])),
                .linkedLibrary("pthread", .when(platforms: [.linux])),
            ]
        ),
        // libdw / libelf from elfutils, found by pkg-config.
        .systemLibrary(name: "CLibDW", pkgConfig: "libdw", providers: [.apt(["libdw-dev"])]),
        // Allocation records: the Swift face of the hook (recorder, frozen heap, allocation scopes).
        .target(name: "LeakGraphRecording", dependencies: ["CLeakGraphHook", "LeakGraphModel"]),
        // Heap walk: runtime calls it needs from C (Swift-calling-convention value witnesses).
        .target(name: "CLeakGraphMetadata", linkerSettings: [.linkedLibrary("elf")]),
        // Object graph: the object graph value (pure data).
        .target(name: "LeakGraphModel"),
        // Heap walk: references from type metadata.
        .target(name: "LeakGraphHeap", dependencies: ["LeakGraphModel", "CLeakGraphMetadata"]),
        // Analysis: roots, reachability, SCCs, root cycles, proof.
        .target(name: "LeakGraphAnalysis", dependencies: ["LeakGraphModel"]),
        // Report values: symbolization of creation stacks (libdw + swift_demangle).
        .target(name: "LeakGraphSymbolication", dependencies: ["LeakGraphModel", "CLibDW"]),
        // SQLite 3, found by pkg-config: the heap snapshot file format.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Report values: the report value and its JSON, baselines, verdicts, the naming rules it uses.
        .target(name: "LeakGraphReport", dependencies: ["LeakGraphModel", "LeakGraphAnalysis"]),
        // Report values: heap snapshots as SQLite files (written and read), and leak reports read as snapshots.
        .target(
            name: "LeakGraphSnapshotFile",
            dependencies: ["LeakGraphModel", "LeakGraphReport", "CSQLite"]
        ),
        // Renderers: the text report, the renderers' naming, JUnit and SARIF, graphs as DOT text, the HTML
        // report and its styles. Needs no system library (the preloaded checker links it).
        .target(name: "LeakGraphRender", dependencies: ["LeakGraphModel", "LeakGraphAnalysis", "LeakGraphReport"]),
        // Graphviz (cgraph + gvc), found by pkg-config.
        .systemLibrary(name: "CGraphviz", pkgConfig: "libgvc", providers: [.apt(["libgraphviz-dev"])]),
        // Renderers: DOT laid out and drawn as SVG through libgvc in-process (the only target that links it).
        .target(name: "LeakGraphGraphviz", dependencies: ["LeakGraphModel", "LeakGraphRender", "CGraphviz"]),
        // Renderers: the web UI of a heap snapshot (`leakgraph serve`), served with SwiftNIO.
        .target(
            name: "LeakGraphWeb",
            dependencies: [
                "LeakGraphModel", "LeakGraphAnalysis", "LeakGraphReport", "LeakGraphRender", "LeakGraphGraphviz",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Adapter: the façade, one call from recording to report.
        .target(
            name: "LeakGraph",
            dependencies: [
                "LeakGraphRecording", "LeakGraphHeap", "LeakGraphModel", "LeakGraphAnalysis",
                "LeakGraphSymbolication", "LeakGraphReport", "LeakGraphRender", "LeakGraphSnapshotFile", "CLeakGraphContract",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Adapter: the monitor's checks as swift-metrics gauges (a separate product: nothing else
        // depends on swift-metrics).
        .target(name: "LeakGraphMetrics", dependencies: ["LeakGraph", .product(name: "Metrics", package: "swift-metrics")]),
        // Adapter: the monitor as a swift-service-lifecycle Service (a separate product).
        .target(
            name: "LeakGraphService",
            dependencies: ["LeakGraph", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        // Adapter: leak checks in test targets (assertNoLeaks, the .checksForLeaks trait), reported to
        // XCTest or Swift Testing. The only target that imports a test library.
        .target(
            name: "LeakGraphTesting",
            dependencies: [
                "LeakGraph", "CLeakGraphContract", .target(name: "LeakGraphGraphviz", condition: .when(traits: ["HTMLReports"])),
            ]
        ),
        // Adapter: the library the preload library loads into a test process, which marks every object
        // with the test that made it (XCTest's observation, Swift Testing's current test). The hook's
        // part (C) answers inside the allocation hook.
        .target(name: "CLeakGraphTestObserver", dependencies: ["CLeakGraphContract"]),
        .target(name: "LeakGraphTestObserver", dependencies: ["CLeakGraphTestObserver", "CLeakGraphContract"]),
        // Adapter: the library `leakgraph run` preloads into an unmodified program (C only: the hook, the
        // exit and signal plumbing, the periodic checks' timer, the test observer's loading) ...
        .target(
            name: "CLeakGraphPreloadStart", dependencies: ["CLeakGraphHook", "CLeakGraphContract"],
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux])), .linkedLibrary("pthread", .when(platforms: [.linux]))]
        ),
        // ... and the checker it loads from its own folder the first time a check runs.
        .target(
            name: "LeakGraphPreloadChecker", dependencies: ["LeakGraph", "LeakGraphRender", "CLeakGraphContract", "CLeakGraphHook"]
        ),
        // Adapter: the command-line tool's async-signal-safe signal handling (C).
        .target(name: "CLeakGraphCLISignals"),
        // Adapter: the command-line tool.
        .executableTarget(
            name: "leakgraph",
            dependencies: [
                "LeakGraphReport", "LeakGraphRender", "LeakGraphSymbolication", "LeakGraphGraphviz", "CLeakGraphContract",
                "CLeakGraphCLISignals",
                "LeakGraphSnapshotFile", "LeakGraphAnalysis", "LeakGraphWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Adapter: `swift package --allow-writing-to-package-directory leakgraph`, which runs `leakgraph test`
        // on the package it is run in (building into .build/leakgraph: SwiftPM locks .build meanwhile).
        .plugin(
            name: "LeakGraphCommand",
            capability: .command(
                intent: .custom(verb: "leakgraph", description: "Run the package's tests with leak checking (leakgraph test)."),
                permissions: [
                    .writeToPackageDirectory(reason: "leakgraph test builds the tests into .build/leakgraph, beside SwiftPM's locked .build")
                ]
            ),
            dependencies: ["leakgraph"]
        ),
        // Test support: a compact notation for typed paths in hand-built graphs.
        .target(name: "LeakGraphTestSupport", dependencies: ["LeakGraphModel"], path: "Tests/LeakGraphTestSupport"),
        .testTarget(name: "LeakGraphRecordingTests", dependencies: ["LeakGraphRecording"]),
        .testTarget(name: "LeakGraphAnalysisTests", dependencies: ["LeakGraphAnalysis", "LeakGraphModel", "LeakGraphTestSupport"]),
        .testTarget(
            name: "LeakGraphHeapTests",
            dependencies: [
                "LeakGraphHeap", "LeakGraphRecording", "LeakGraphModel",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "LeakGraphReportTests", dependencies: ["LeakGraphReport", "LeakGraphRender", "LeakGraphTestSupport"],
            exclude: ["Golden", "Schemas"]
        ),
        .testTarget(name: "LeakGraphSymbolicationTests", dependencies: ["LeakGraphSymbolication"]),
        .testTarget(
            name: "LeakGraphSnapshotFileTests", dependencies: ["LeakGraphSnapshotFile", "LeakGraphReport", "LeakGraphTestSupport"]),
        .testTarget(
            name: "LeakGraphGraphvizTests",
            dependencies: ["LeakGraphGraphviz", "LeakGraphRender", "LeakGraphReport", "LeakGraphModel", "LeakGraphTestSupport"],
            exclude: ["Golden"]
        ),
        // The façade in-process: start recording, leak, check, fixed code.
        .testTarget(name: "LeakGraphTests", dependencies: ["LeakGraph", .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "LeakGraphMonitorAdapterTests",
            dependencies: [
                "LeakGraphMetrics", "LeakGraphService", "LeakGraph",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The test adapters in Swift Testing: failures expected with withKnownIssue.
        .testTarget(name: "LeakGraphTestingTests", dependencies: ["LeakGraphTesting", "LeakGraph"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["LeakGraphReport", "LeakGraphRender", "LeakGraphModel", "LeakGraphAnalysis", "LeakGraphSnapshotFile"]
        ),
    ]
)

// scripts/test sets LEAKGRAPH_WARNINGS_AS_ERRORS=1: a warning in LeakGraph's own targets (Swift and C) then
// fails the build. SwiftPM applies these settings to this package's targets only, never to dependencies.
let warningsAsErrors = Context.environment["LEAKGRAPH_WARNINGS_AS_ERRORS"] == "1"

for target in package.targets where target.type != .system && target.type != .plugin {
    guard target.name.first != "C" || target.type == .test else {
        if warningsAsErrors {
            target.cSettings = (target.cSettings ?? []) + [.treatAllWarnings(as: .error)]
        }
        continue
    }
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    if warningsAsErrors {
        settings.append(.treatAllWarnings(as: .error))
    }
    target.swiftSettings = settings
}
