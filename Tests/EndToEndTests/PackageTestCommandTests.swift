import Foundation
import LeakGraphReport
import Testing

// `leakgraph test` on whole packages: Samples/LeakCheckedPackage (XCTest and Swift Testing tests of a
// library with two retain cycles, leaking or fixed as LEAKCHECKED_WIRING says) and one real package from
// the local package mirror. Each package is built once per test process (one scratch path, reused: the
// later `swift build --build-tests` find nothing to do).

@Suite("leakgraph test", .serialized, .timeLimit(.minutes(10)))
struct PackageTestCommandTests {
    /// `Samples/LeakCheckedPackage`.
    static let sample = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/LeakCheckedPackage")
    /// The sample's build directory, shared by the tests of this process.
    static let sampleScratch = Result { try Scratch.directory("leak-checked-package") }

    @Test("leaking sample: Room ⇄ Member from the XCTest run, MessageHandler ⇄ Connection from the Swift Testing run, exit 1")
    func leakingSample() async throws {
        let run = try await LeakgraphTest.run(package: Self.sample, scratch: try Self.sampleScratch.get())
        #expect(run.result.status == 1, "\(run.result.summary)")
        let report = try #require(run.report, "no report: \(run.result.summary)")
        expectConsistent(report)
        #expect(
            run.cyclesByRun == [
                "Swift Testing: Chat.Connection, Chat.MessageHandler",
                "XCTest: (arrayStorage), Chat.Member, Chat.Member, Chat.Room",
                "XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]",
            ])
        let suspects = report.cycles.filter { $0.knownLibraryLeak == nil }.compactMap(\.suspect?.label).sorted()
        #expect(suspects == ["onMessage (closure)", "room"])
        #expect(report.program.path.hasSuffix("/LeakCheckedPackagePackageTests.xctest"))
        #expect(report.program.exitStatus == 0)
        #expect(run.result.standardError.contains("Found in the Swift Testing run"))
        #expect(run.toolMessages.filter { $0.contains("skipping") }.isEmpty, "\(run.toolMessages)")
    }

    @Test("fixed sample: only XCTest's own known leak, exit 0; failing tests: exit 3")
    func fixedSample() async throws {
        let scratch = try Self.sampleScratch.get()
        let fixed = try await LeakgraphTest.run(
            package: Self.sample, scratch: scratch, environment: ["LEAKCHECKED_WIRING": "fixed"])
        #expect(fixed.result.status == 0, "\(fixed.result.summary)")
        #expect(fixed.cyclesByRun == ["XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]"])

        let failing = try await LeakgraphTest.run(
            package: Self.sample, scratch: scratch, environment: ["LEAKCHECKED_WIRING": "fixed", "LEAKCHECKED_FAIL": "1"])
        #expect(failing.result.status == 3, "\(failing.result.summary)")
        #expect(failing.report?.program.exitStatus == 1)
        #expect(failing.toolMessages.last == "leakgraph: the XCTest tests failed (exit status 1)")
    }

    @Test("not a package, and a build that fails: exit 2 with one message (and the build's output)")
    func toolErrors() async throws {
        let empty = try Scratch.directory("not-a-package")
        let notPackage = try await LeakgraphTest.run(package: empty, scratch: empty.appendingPathComponent("build"))
        #expect(notPackage.result.status == 2)
        #expect(notPackage.toolMessages == ["leakgraph: \(empty.path) is not a Swift package: it has no Package.swift"])

        let broken = try Scratch.directory("broken-package")
        try FileManager.default.createDirectory(
            at: broken.appendingPathComponent("Sources/Broken"), withIntermediateDirectories: true)
        try """
            // swift-tools-version: 6.0
            import PackageDescription
            let package = Package(name: "Broken", targets: [.target(name: "Broken")])
            """.write(to: broken.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try "let x: Int = \"not a number\"\n".write(
            to: broken.appendingPathComponent("Sources/Broken/Broken.swift"), atomically: true, encoding: .utf8)
        let failed = try await LeakgraphTest.run(package: broken, scratch: broken.appendingPathComponent(".build"))
        #expect(failed.result.status == 2)
        #expect(failed.toolMessages.last?.hasPrefix("leakgraph: the build of the tests failed (exit status 1):") == true)
        #expect(failed.result.standardError.contains("cannot convert value of type 'String' to specified type 'Int'"))
        #expect(failed.report == nil)
    }

    /// pointfreeco/swift-concurrency-extras 1.4.3 has XCTest and Swift Testing tests, one dependency
    /// (swift-docc-plugin, resolved but not built) and builds in well under a minute.
    @Test("a real package from the mirror: swift-concurrency-extras runs both libraries, exit 0")
    func realPackage() async throws {
        let folder = try Scratch.directory("concurrency-extras")
        let checkout = folder.appendingPathComponent("swift-concurrency-extras")
        let clone = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                "git", "-c", "advice.detachedHead=false", "clone", "-q", "--depth", "1", "--branch", "1.4.3",
                "https://github.com/pointfreeco/swift-concurrency-extras", checkout.path,
            ],
            environment: cleanEnvironment())
        try #require(clone.status == 0, "cannot clone swift-concurrency-extras from the package mirror: \(clone.summary)")
        // Its Package.resolved names GitHub's commits, which the mirror's copies do not have.
        try? FileManager.default.removeItem(at: checkout.appendingPathComponent("Package.resolved"))
        let run = try await LeakgraphTest.run(package: checkout, scratch: folder.appendingPathComponent("build"))
        #expect(run.result.status == 0, "\(run.result.summary)")
        #expect(run.toolMessages.filter { $0.hasPrefix("leakgraph: running the ") }.count == 2, "\(run.toolMessages)")
        let report = try #require(run.report, "no report: \(run.result.summary)")
        expectConsistent(report)
        #expect(report.leakedObjectsOutsideLibraries == 0)
        #expect(run.cyclesByRun == ["XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]"])
        #expect(run.result.standardError.contains("Test run with"))
    }

    @Test("baselines: written from the leaking sample they accept both runs' cycles (exit 0); a type pattern accepts one")
    func baselines() async throws {
        let scratch = try Self.sampleScratch.get()
        let file = try Scratch.directory("package-baseline").appendingPathComponent("leakgraph.baseline")
        let writing = try await LeakgraphTest.run(package: Self.sample, scratch: scratch, options: ["--write-baseline", file.path])
        #expect(writing.result.status == 0, "\(writing.result.summary)")
        let baseline = try Baseline.parse(String(contentsOf: file, encoding: .utf8), source: file.path)
        #expect(baseline.entries.count == 2, "one fingerprint per user cycle, none for XCTest's own: \(baseline.text)")

        let accepted = try await LeakgraphTest.run(package: Self.sample, scratch: scratch, options: ["--baseline", file.path])
        #expect(accepted.result.status == 0, "\(accepted.result.summary)")
        let report = try #require(accepted.report)
        #expect(report.cycles.map { $0.knownLibraryLeak != nil || $0.suppressed != nil } == report.cycles.map { _ in true })
        #expect(report.suppressedCycles.count == 2 && report.newLeakedObjects == 0)

        let pattern = try Scratch.directory("package-baseline").appendingPathComponent("rooms.baseline")
        try Data("version: 1\ntype: Chat.Room  # rooms are kept for the whole test run\n".utf8).write(to: pattern)
        let partly = try await LeakgraphTest.run(package: Self.sample, scratch: scratch, options: ["--baseline", pattern.path])
        #expect(partly.result.status == 1, "MessageHandler ⇄ Connection is still new: \(partly.result.summary)")
        let partlyReport = try #require(partly.report)
        #expect(partlyReport.suppressedCycles.map { $0.run } == ["XCTest"])
        #expect(partly.result.standardError.contains("1 new leak, 1 suppressed by the baseline (root cycles)."))
    }
}

extension PackageTestCommandTests {
    /// Writes a package with one library (`Node`) and one XCTest test whose `Node ⇄ Node` cycle leaks, and
    /// with `linuxMain`, a `Tests/LinuxMain.swift` calling `XCTMain` (as older packages have).
    static func xctestOnlyPackage(linuxMain: Bool) throws -> URL {
        let root = try Scratch.directory(linuxMain ? "linux-main-package" : "xctest-only-package")
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("Package.swift", """
            // swift-tools-version:5.9
            import PackageDescription
            let package = Package(
                name: "Nodes",
                targets: [.target(name: "Nodes"), .testTarget(name: "NodesTests", dependencies: ["Nodes"])]
            )
            """)
        try write("Sources/Nodes/Node.swift", "public final class Node { public var next: Node?; public init() {} }\n")
        try write("Tests/NodesTests/NodesTests.swift", """
            import XCTest
            import Nodes
            final class NodesTests: XCTestCase {
                func testCycle() {
                    let a = Node(), b = Node()
                    a.next = b
                    b.next = a
                }
                static let allTests = [("testCycle", testCycle)]
            }
            """)
        if linuxMain {
            try write("Tests/LinuxMain.swift", "import XCTest\n@testable import NodesTests\nXCTMain([testCase(NodesTests.allTests)])\n")
        }
        return root
    }

    @Test("an XCTest-only bundle (Swift Testing lists nothing, exit 69) and one whose main is XCTMain (LinuxMain.swift): the Swift Testing run is skipped, each leak reported once",
          arguments: [false, true])
    func xctestOnly(linuxMain: Bool) async throws {
        let package = try Self.xctestOnlyPackage(linuxMain: linuxMain)
        let run = try await LeakgraphTest.run(package: package, scratch: package.appendingPathComponent(".build"))
        #expect(run.result.status == 1, "\(run.result.summary)")
        #expect(run.toolMessages.contains { $0.contains("has no Swift Testing tests; skipping the Swift Testing run") }, "\(run.toolMessages)")
        #expect(!run.toolMessages.contains { $0.contains("tests failed") }, "\(run.toolMessages)")
        #expect(run.cyclesByRun == ["XCTest: Nodes.Node, Nodes.Node", "XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]"])
    }
}
