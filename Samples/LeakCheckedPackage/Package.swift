// swift-tools-version: 6.1
import PackageDescription

// A small library with two real retain cycles, each in a leaking and a fixed form, and tests of it in
// both frameworks: XCTest (Tests/ChatXCTests) and Swift Testing (Tests/ChatSwiftTestingTests).
// `leakgraph test --package-path Samples/LeakCheckedPackage` checks both runs for leaks.
let package = Package(
    name: "LeakCheckedPackage",
    products: [
        .library(name: "Chat", targets: ["Chat"]),
    ],
    targets: [
        .target(name: "Chat"),
        .testTarget(name: "ChatXCTests", dependencies: ["Chat"]),
        .testTarget(name: "ChatSwiftTestingTests", dependencies: ["Chat"]),
    ]
)
