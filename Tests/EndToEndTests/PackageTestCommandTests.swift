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

    @Test("leaking sample: every cycle names the test that made it; one family per shape, named for every test; XCTest's own and measure {} cycles are known library leaks; exit 23 and a verdict line")
    func leakingSample() async throws {
        let folder = try Scratch.directory("package-outputs")
        let junit = folder.appendingPathComponent("leaks.xml"), sarif = folder.appendingPathComponent("leaks.sarif")
        let run = try await LeakgraphTest.run(
            package: Self.sample, scratch: try Self.sampleScratch.get(), options: ["--junit", junit.path, "--sarif", sarif.path])
        #expect(run.result.status == 23, "\(run.result.summary)")
        let report = try #require(run.report, "no report: \(run.result.summary)")
        expectConsistent(report)
        #expect(
            run.cyclesByRun == [
                "Swift Testing: (arrayStorage), Chat.Member, Chat.Room",
                "Swift Testing: Chat.Connection, Chat.MessageHandler",
                "Swift Testing: Chat.Connection, Chat.MessageHandler",
                "Swift Testing: Chat.Connection, Chat.MessageHandler",
                "XCTest: (arrayStorage), Chat.Member, Chat.Member, Chat.Room",
                "XCTest: (arrayStorage), Chat.Member, Chat.Member, Chat.Room",
                "XCTest: Chat.Connection, Chat.MessageHandler",
                "XCTest: ChatXCTests.RoomTests, XCTest.PerformanceMeter, XCTest.XCTestCaseRun [library]",
                "XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]",
            ], "\(run.cyclesByRun)")
        // Which test made each cycle: XCTest's observation and Swift Testing's current test (in parallel).
        let tests = report.cycles.filter { $0.knownLibraryLeak == nil }.map { cycle in
            "\(cycle.run ?? "?"): " + (cycle.tests ?? ["(not observed)"]).joined(separator: ", ")
        }.sorted()
        #expect(
            tests == [
                "Swift Testing: MessageHandlerTests.countsDeliveredMessages()",
                "Swift Testing: MessageHandlerTests.countsMessagesFromATask()",
                "Swift Testing: MessageHandlerTests.countsRepeatedMessages()",
                "Swift Testing: MessageHandlerTests.roomsInSwiftTesting()",
                "XCTest: ",
                "XCTest: RoomTests.testMembersCanRejoin",
                "XCTest: RoomTests.testMembersKnowTheirRoom",
            ], "\(tests)")
        let text = run.result.standardError
        // One section per family: four MessageHandler ⇄ Connection cycles, three Room ⇄ Member ones.
        #expect(text.components(separatedBy: "ROOT CYCLE #").count - 1 == 2, "\(text)")
        #expect(text.contains("Found in MessageHandlerTests.") && text.contains("(Swift Testing run) and outside any test"))
        #expect(text.contains("Found in RoomTests.testMembersCanRejoin and RoomTests.testMembersKnowTheirRoom (XCTest run) and MessageHandlerTests.roomsInSwiftTesting() (Swift Testing run)"))
        #expect(text.contains("KNOWN LIBRARY LEAKS (not your code; reported, not failing): 2 root cycles"))
        #expect(text.contains("_performanceMeter → PerformanceMeter.delegate"))
        let diagnostics = text.split(separator: "\n").filter { $0.hasPrefix("Not read exactly") || $0.hasPrefix("   Foundation.") }
        #expect(diagnostics.count <= 3, "only library internals are unread: \(diagnostics)")
        #expect(
            run.toolMessages.last?.hasPrefix("leakgraph: 19 leaked objects (") == true
                && run.toolMessages.last?.hasSuffix("the XCTest tests passed, the Swift Testing tests passed; exit status 23 (leaks found)") == true,
            "\(run.toolMessages)")
        #expect(report.program.path.hasSuffix("/LeakCheckedPackagePackageTests.xctest"))
        #expect(report.program.exitStatus == 0)
        #expect(run.toolMessages.filter { $0.contains("skipping") }.isEmpty, "\(run.toolMessages)")

        // JUnit and SARIF: valid, one case (result) per family, naming the leaked types and source files.
        let xml = try String(contentsOf: junit, encoding: .utf8)
        let lint = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["xmllint", "--noout", "--schema", Self.junitSchema.path, junit.path], environment: cleanEnvironment())
        #expect(lint.status == 0, "\(lint.summary)")
        #expect(xml.contains(#"tests="4" failures="2" errors="0" skipped="2""#), "\(xml)")
        #expect(xml.contains("file=\"\(Self.sample.path)/Sources/Chat/Room.swift\""), "\(xml)")
        // Either member may carry the suspect (of two equal back-references the analysis takes the member
        // first in the heap walk's order, which differs between runs), so the ring passes through either element.
        #expect(
            (xml.contains("Room.members[0] → Member.room → Room") || xml.contains("Room.members[1] → Member.room → Room"))
                && xml.contains("(MessageHandler, Connection)"), "\(xml)")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: sarif)) as? [String: Any])
        let results = try #require(((log["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        #expect(results.filter { $0["level"] as? String == "error" }.count == 2)
        let uris = results.compactMap { ((($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])?["artifactLocation"] as? [String: Any])?["uri"] as? String }
        #expect(uris.contains("Sources/Chat/Room.swift") && uris.contains("Sources/Chat/MessageHandler.swift"), "\(uris)")
        if let schema = ProcessInfo.processInfo.environment["LEAKGRAPH_SARIF_SCHEMA"] {
            let check = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                arguments: ["python3", "-c", "import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))", sarif.path, schema],
                environment: cleanEnvironment())
            #expect(check.status == 0, "\(check.summary)")
        }
    }

    /// The JUnit schema the report tests hold `--junit` to.
    static let junitSchema = FixtureBuilds.fixturesDirectory.deletingLastPathComponent()
        .appendingPathComponent("LeakGraphReportTests/Schemas/junit.xsd")

    @Test("fixed sample: only the known library leaks, exit 0; failing tests: their status (1), named in the last line")
    func fixedSample() async throws {
        let scratch = try Self.sampleScratch.get()
        let fixed = try await LeakgraphTest.run(
            package: Self.sample, scratch: scratch, environment: ["LEAKCHECKED_WIRING": "fixed"])
        #expect(fixed.result.status == 0, "\(fixed.result.summary)")
        #expect(
            fixed.cyclesByRun == [
                "XCTest: ChatXCTests.RoomTests, XCTest.PerformanceMeter, XCTest.XCTestCaseRun [library]",
                "XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]",
            ])
        #expect(fixed.toolMessages.last?.hasSuffix("; exit status 0 (no leaks, the tests passed)") == true, "\(fixed.toolMessages)")

        let failing = try await LeakgraphTest.run(
            package: Self.sample, scratch: scratch, environment: ["LEAKCHECKED_WIRING": "fixed", "LEAKCHECKED_FAIL": "1"])
        #expect(failing.result.status == 1, "\(failing.result.summary)")
        #expect(failing.report?.program.exitStatus == 1)
        #expect(
            failing.toolMessages.last?.hasSuffix(
                "the XCTest tests failed (exit status 1), the Swift Testing tests passed; exit status 1 (the tests' status)") == true,
            "\(failing.toolMessages)")
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
        #expect(baseline.entries.count == 2, "one fingerprint per user family, none for XCTest's own: \(baseline.text)")

        let accepted = try await LeakgraphTest.run(package: Self.sample, scratch: scratch, options: ["--baseline", file.path])
        #expect(accepted.result.status == 0, "\(accepted.result.summary)")
        let report = try #require(accepted.report)
        #expect(report.cycles.map { $0.knownLibraryLeak != nil || $0.suppressed != nil } == report.cycles.map { _ in true })
        #expect(report.suppressedCycles.count == 7 && report.newLeakedObjects == 0)

        let pattern = try Scratch.directory("package-baseline").appendingPathComponent("rooms.baseline")
        try Data("version: 1\ntype: Chat.Room  # rooms are kept for the whole test run\n".utf8).write(to: pattern)
        let partly = try await LeakgraphTest.run(package: Self.sample, scratch: scratch, options: ["--baseline", pattern.path])
        #expect(partly.result.status == 23, "MessageHandler ⇄ Connection is still new: \(partly.result.summary)")
        let partlyReport = try #require(partly.report)
        #expect(partlyReport.suppressedCycles.compactMap(\.run).sorted() == ["Swift Testing", "XCTest", "XCTest"])
        #expect(partly.result.standardError.contains("4 new leaks, 3 suppressed by the baseline (root cycles)."))
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
        #expect(run.result.status == 23, "\(run.result.summary)")
        #expect(run.toolMessages.contains { $0.contains("has no Swift Testing tests; skipping the Swift Testing run") }, "\(run.toolMessages)")
        #expect(!run.toolMessages.contains { $0.contains("tests failed") }, "\(run.toolMessages)")
        #expect(run.cyclesByRun == ["XCTest: Nodes.Node, Nodes.Node", "XCTest: XCTest.XCTestSuite, XCTest.XCTestSuiteRun [library]"])
        #expect(run.report?.cycles.first { $0.knownLibraryLeak == nil }?.tests == ["NodesTests.testCycle"])
    }
}
