import Foundation
import LeakGraphReport
import Testing

// LeakGraphTesting from a package that depends on LeakGraph by path: Samples/TestingExample's XCTest
// tests use `assertNoLeaks`, its Swift Testing suite `.checksForLeaks`. Built once per test process;
// the test bundle is run directly (XCTest, then `--testing-library swift-testing`), leaking and fixed,
// alone and under `leakgraph run` (where the adapters join the preload's recording).

@Suite("LeakGraphTesting in a package's tests", .serialized, .timeLimit(.minutes(10)))
struct TestingAdaptersSampleTests {
    /// `Samples/TestingExample`.
    static let sample = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Samples/TestingExample")

    /// The sample's test bundle, built once into this process's scratch directory.
    static let bundle = Task<URL, any Error> {
        let scratch = try Scratch.directory("testing-example")
        defer { removeBuildLocks(of: scratch) }
        let arguments = ["swift", "build", "--build-tests", "--package-path", sample.path, "--scratch-path", scratch.path]
        let build = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: arguments, environment: cleanEnvironment())
        guard build.status == 0, !build.signaled else {
            throw FixtureBuilds.CompileError(description: "\(arguments.joined(separator: " ")) failed: \(build.summary)")
        }
        return scratch.appendingPathComponent("debug/TestingExamplePackageTests.xctest")
    }

    /// Runs the bundle's tests of `library` (`nil`: XCTest), optionally under `leakgraph run`.
    static func runTests(
        swiftTesting: Bool, fixed: Bool = false, underLeakgraph: Bool = false
    ) async throws -> (result: ProcessResult, reports: URL) {
        let bundle = try await bundle.value
        let reports = try Scratch.directory("testing-example-reports")
        var environment = cleanEnvironment(adding: ["LEAKGRAPH_REPORT_DIR": reports.path])
        if fixed { environment["LEAKGRAPH_EXAMPLE_WIRING"] = "fixed" }
        let testArguments = swiftTesting ? ["--testing-library", "swift-testing"] : []
        let result: ProcessResult
        if underLeakgraph {
            result = try await runProcess(
                try BuildProducts.leakgraph(),
                arguments: ["run", "--text", reports.appendingPathComponent("exit.txt").path, "--", bundle.path] + testArguments,
                environment: environment)
        } else {
            result = try await runProcess(bundle, arguments: testArguments, environment: environment)
        }
        return (result, reports)
    }

    static let inboxTests = "Tests/InboxXCTests/InboxTests.swift"

    @Test("XCTest: each leaking assertNoLeaks fails at its line with the leak trace and a report; fixed code passes")
    func xctest() async throws {
        let (run, reports) = try await Self.runTests(swiftTesting: false)
        let output = run.standardOutput
        #expect(run.status == 1, "\(run.summary)")
        #expect(output.contains("\(Self.inboxTests):7: error: InboxTests.testInboxShowsLoadedMessages : failed - 3 objects leaked (128 bytes, 1 root cycle)"))
        #expect(output.contains("InboxViewController.loader → MessageLoader.onLoad (closure) → InboxViewController"))
        #expect(output.contains("Fix: capture the `InboxViewController` weakly: `{ [weak self] in … }` in a method of `InboxViewController`"))
        #expect(output.contains("\(Self.inboxTests):16: error: InboxTests.testConversationKeepsItsParticipants : failed"))
        #expect(output.contains("Fix: make it `weak var conversation`."))
        // Made on a thread no task runs on: attributed while the check is the only one open.
        #expect(output.contains("\(Self.inboxTests):28: error: InboxTests.testConversationMadeOnAnotherThread : failed - 3 objects leaked"))
        #expect(output.contains("Executed 5 tests, with 3 failures"), "the 3 leak checks fail; the 2 allocation budgets pass")
        let html = reports.appendingPathComponent("InboxTests.7.html")
        #expect(output.contains("Report: \(html.path)"))
        #expect(FileManager.default.fileExists(atPath: html.path))
        let json = try LeakReport.decode(from: Data(contentsOf: reports.appendingPathComponent("InboxTests.7.json")))
        #expect(json.leaks.map { typeKey($0) }.sorted() == ["(arrayStorage)", "Inbox.InboxViewController", "Inbox.MessageLoader"])

        let fixed = try await Self.runTests(swiftTesting: false, fixed: true).result
        #expect(fixed.status == 0, "\(fixed.summary)")
        #expect(fixed.standardOutput.contains("Executed 5 tests, with 0 failures"))
    }

    @Test("Swift Testing: the suite's .checksForLeaks fails each leaking test at its declaration; ignored types pass")
    func swiftTesting() async throws {
        let run = try await Self.runTests(swiftTesting: true).result
        let output = run.standardOutput + run.standardError
        #expect(run.status == 1, "\(run.summary)")
        #expect(output.contains("Test inboxShowsLoadedMessages() recorded an issue at InboxSuite.swift:7:6"))
        #expect(output.contains("Test conversationKeepsItsParticipants() recorded an issue at InboxSuite.swift:14:6"))
        #expect(output.contains("Test ignoredTypesDoNotFail() passed"))
        #expect(output.contains("InboxViewController.loader → MessageLoader.onLoad (closure) → InboxViewController"))

        let fixed = try await Self.runTests(swiftTesting: true, fixed: true).result
        #expect(fixed.status == 0, "\(fixed.summary)")
    }

    @Test("under leakgraph run the adapters join the preload's recording; the exit check still reports")
    func underLeakgraphRun() async throws {
        let (run, reports) = try await Self.runTests(swiftTesting: false, underLeakgraph: true)
        let output = run.standardOutput
        #expect(run.status == 1, "\(run.summary)")
        #expect(output.contains("\(Self.inboxTests):7: error: InboxTests.testInboxShowsLoadedMessages : failed - 3 objects leaked"))
        #expect(output.contains("\(Self.inboxTests):28: error: InboxTests.testConversationMadeOnAnotherThread : failed"))
        let text = try String(contentsOf: reports.appendingPathComponent("exit.txt"), encoding: .utf8)
        #expect(text.contains("InboxViewController.loader → MessageLoader.onLoad (closure) → InboxViewController"), "\(text)")
    }
}
