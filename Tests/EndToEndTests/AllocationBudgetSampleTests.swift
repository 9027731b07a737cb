import Foundation
import Testing

// Allocation budgets in a package's tests: Samples/TestingExample's BudgetXCTests (`assertAllocations`)
// and BudgetSwiftTestingTests (`.allocationBudget`, under the suite's `.checksForLeaks`, with parallel
// cases). Rendering 100 thumbnails makes 101 objects; with LEAKGRAPH_EXAMPLE_BUDGET=over, 201. Each
// case runs five times: the counts and messages are the same every time.

@Suite("Allocation budgets in a package's tests", .serialized, .timeLimit(.minutes(10)))
struct AllocationBudgetSampleTests {
    static let budgetTests = "Tests/BudgetXCTests/ThumbnailBudgetTests.swift"

    /// Runs the budget tests of `library` five times, over budget or not; returns each run's output.
    static func runFiveTimes(swiftTesting: Bool, over: Bool) async throws -> [ProcessResult] {
        let bundle = try await TestingAdaptersSampleTests.bundle.value
        let arguments = swiftTesting
            ? ["--testing-library", "swift-testing", "--filter", "ThumbnailBudgetSuite"] : ["BudgetXCTests.ThumbnailBudgetTests"]
        let environment = cleanEnvironment(adding: over ? ["LEAKGRAPH_EXAMPLE_BUDGET": "over"] : [:])
        var results: [ProcessResult] = []
        for _ in 1...5 {
            results.append(try await runProcess(bundle, arguments: arguments, environment: environment))
        }
        return results
    }

    /// The lines of `output` that carry counts (failure messages), without timings.
    static func countLines(_ output: String) -> [String] {
        output.split(separator: "\n").map(String.init).filter {
            $0.contains("allocated") || $0.contains(" × ")
        }.sorted()
    }

    @Test("XCTest: within the budget both pass; over it each fails at its line with the count, the types and the sites — five times the same")
    func xctest() async throws {
        for run in try await Self.runFiveTimes(swiftTesting: false, over: false) {
            #expect(run.status == 0, "\(run.summary)")
            #expect(run.standardOutput.contains("Executed 2 tests, with 0 failures"))
        }
        let over = try await Self.runFiveTimes(swiftTesting: false, over: true)
        for run in over {
            let output = run.standardOutput
            #expect(run.status == 1, "\(run.summary)")
            #expect(output.contains(
                "\(Self.budgetTests):10: error: ThumbnailBudgetTests.testRenderingStaysWithinItsBudget : failed - "
                    + "201 objects allocated (5,632 bytes), over the budget of at most 101 (100 more)."), "\(output)")
            #expect(output.contains("  Thumbnail × 100 at Thumbnails.swift:45 in ThumbnailRenderer.draft(_:)"))
            #expect(output.contains("  Thumbnail × 100 at Thumbnails.swift:37 in ThumbnailRenderer.render(_:drawing:)"))
            #expect(output.contains(
                "\(Self.budgetTests):18: error: ThumbnailBudgetTests.testThumbnailsPerTypeAndNothingSurvives : failed - "
                    + "200 Thumbnail objects allocated, over the budget of at most 100 (100 more)."))
            #expect(output.contains("Executed 2 tests, with 2 failures"))
        }
        #expect(Set(over.map { Self.countLines($0.standardOutput) }).count == 1)
    }

    @Test("Swift Testing: the trait fails at the test's declaration; parallel cases each count their own — five times the same")
    func swiftTesting() async throws {
        for run in try await Self.runFiveTimes(swiftTesting: true, over: false) {
            #expect(run.status == 0, "\(run.summary)")
        }
        let over = try await Self.runFiveTimes(swiftTesting: true, over: true)
        for run in over {
            let output = run.standardOutput + run.standardError
            #expect(run.status == 1, "\(run.summary)")
            #expect(output.contains("Test renderingStaysWithinItsBudget(drawing:) recorded an issue with 1 argument drawing → .twice at ThumbnailBudgetSuite.swift:10:6"), "\(output)")
            #expect(output.contains("201 objects allocated (5,632 bytes), over the budget of at most 101 (100 more)."))
            // Of the three parallel cases only the one with 60 thumbnails (120 drawn) is over 100.
            #expect(output.contains("recorded an issue with 2 arguments count → 60, drawing → .twice at ThumbnailBudgetSuite.swift:17:6"))
            #expect(output.contains("120 Thumbnail objects allocated, over the budget of at most 100 (20 more)."))
            #expect(!output.contains("count → 20, drawing → .twice at"))
            #expect(!output.contains("count → 40, drawing → .twice at"))
            #expect(!output.contains("leaked"), "no leak in the suite's leak checks around the budgets")
        }
        #expect(Set(over.map { Self.countLines($0.standardOutput + $0.standardError) }).count == 1)
    }

    @Test("under leakgraph run --allocations the budgets join the preload's recording: the same counts; the run's profile has every thumbnail")
    func underLeakgraphRun() async throws {
        let bundle = try await TestingAdaptersSampleTests.bundle.value
        let alone = try await runProcess(
            bundle, arguments: ["BudgetXCTests.ThumbnailBudgetTests"],
            environment: cleanEnvironment(adding: ["LEAKGRAPH_EXAMPLE_BUDGET": "over"]))
        let run = try await LeakgraphRun.run(
            bundle.path, ["BudgetXCTests.ThumbnailBudgetTests"], options: ["--allocations"],
            environment: ["LEAKGRAPH_EXAMPLE_BUDGET": "over"])
        #expect(run.result.status == 1, "the tests' own status: \(run.result.summary)")
        #expect(Self.countLines(run.result.standardOutput) == Self.countLines(alone.standardOutput))
        #expect(run.result.standardOutput.contains("201 objects allocated (5,632 bytes), over the budget of at most 101"))
        let thumbnails = run.report?.allocations?.types.first { $0.type == "Inbox.Thumbnail" }
        #expect(thumbnails?.objects == 400, "two tests drawing 100 thumbnails twice: \(String(describing: run.report?.allocations?.types.prefix(5)))")
    }
}
