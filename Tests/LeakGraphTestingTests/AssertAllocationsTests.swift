import Foundation
import LeakGraph
import LeakGraphTesting
import Synchronization
import Testing

/// A class only the budget tests make.
final class BudgetedWidget {
    let id: Int
    init(id: Int) { self.id = id }
}

/// Makes `count` widgets and returns them (one array storage more).
@inline(never)
func makeBudgetedWidgets(_ count: Int) -> [BudgetedWidget] {
    var widgets: [BudgetedWidget] = []
    widgets.reserveCapacity(count)
    for index in 0..<count {
        widgets.append(BudgetedWidget(id: index))
    }
    return widgets
}

/// Widgets a body keeps alive after it returns.
nonisolated(unsafe) var keptBudgetedWidgets: [BudgetedWidget] = []

/// Per-tag widgets, so parallel tests each make their own type.
final class TaggedWidget<Tag> {}

@inline(never)
func makeTaggedWidgets<Tag>(_: Tag.Type, _ count: Int) {
    for _ in 0..<count {
        Unmanaged.passRetained(TaggedWidget<Tag>()).release()
    }
}

enum ParallelBudgetA {}
enum ParallelBudgetB {}
enum ParallelBudgetC {}

/// `assertAllocations` and `.allocationBudget` in Swift Testing: bodies over their budget fail at the
/// caller's line (or the test's declaration) naming the count, the budget, the types and the sites;
/// bodies within it pass; the counts are the same every time; parallel tests count their own.
@Suite("assertAllocations and .allocationBudget")
struct AssertAllocationsTests {
    /// The issues `body` records, as texts with their lines.
    func issues(_ body: () -> Void) -> [(line: Int?, text: String)] {
        let recorded = Mutex<[(line: Int?, text: String)]>([])
        withKnownIssue {
            body()
        } matching: { issue in
            recorded.withLock { $0.append((issue.sourceLocation?.line, issue.comments.map(\.rawValue).joined())) }
            return true
        }
        return recorded.withLock { $0 }
    }

    @Test("over the budget: the count, the budget, the top types and sites, at the caller's line — the same five times")
    func overBudget() {
        var messages: [String] = []
        for _ in 0..<5 {
            let line = #line + 2
            let found = issues {
                assertAllocations(atMost: 50) { _ = makeBudgetedWidgets(100) }
            }
            #expect(found.count == 1)
            #expect(found.first?.line == line)
            messages.append(found.first?.text ?? "")
        }
        let message = messages[0]
        #expect(message.hasPrefix("101 objects allocated (3,232 bytes), over the budget of at most 50 (51 more)."), "\(message)")
        #expect(message.contains("  BudgetedWidget × 100 (2,400 bytes)"), "\(message)")
        #expect(message.contains("  BudgetedWidget × 100 at AssertAllocationsTests.swift:19 in makeBudgetedWidgets(_:)"), "\(message)")
        #expect(Set(messages).count == 1, "the same count and message every time: \(messages)")
    }

    @Test("within the budget: passes and returns the body's value")
    func withinBudget() {
        let widgets = assertAllocations(atMost: 101) { makeBudgetedWidgets(100) }
        #expect(widgets.count == 100)
    }

    @Test("per type and alive: each limit passed is named; the sites of what stayed alive are listed")
    func perTypeAndAlive() {
        let found = issues {
            assertAllocations(atMost: ["BudgetedWidget": 10, "Swift._ContiguousArrayStorage<LeakGraphTestingTests.BudgetedWidget>": 1], aliveAtMost: 0) {
                keptBudgetedWidgets = makeBudgetedWidgets(20)
            }
        }
        let text = found.first?.text ?? ""
        #expect(found.count == 1)
        #expect(text.contains("20 BudgetedWidget objects allocated, over the budget of at most 10 (10 more)."), "\(text)")
        #expect(text.contains("21 objects still alive when the body returned, over the budget of at most 0 (21 more)."), "\(text)")
        #expect(text.contains("Still alive when the body returned:\n  BudgetedWidget × 20 at AssertAllocationsTests.swift:19"), "\(text)")
        #expect(!text.contains("ContiguousArrayStorage<LeakGraphTestingTests.BudgetedWidget> objects allocated"), "within its own limit")
        keptBudgetedWidgets = []
    }

    @Test("async bodies count the tasks they start")
    func asyncBody() async {
        let count = Mutex(0)
        await withKnownIssue {
            await assertAllocations(atMost: 10) {
                await Task { _ = makeBudgetedWidgets(30) }.value
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            count.withLock { $0 += 1 }
            return text.contains("BudgetedWidget × 30 at AssertAllocationsTests.swift:19")
        }
        #expect(count.withLock { $0 } == 1)
    }

    @Test("the trait fails the test at its declaration", .tags())
    func traitAtDeclaration() async throws {
        let test = try #require(Test.current)
        let trait = AllocationBudgetTrait.allocationBudget(atMost: 5)
        let recorded = Mutex<[Int?]>([])
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) { _ = makeBudgetedWidgets(10) }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            recorded.withLock { $0.append(issue.sourceLocation?.line) }
            return text.hasPrefix("11 objects allocated") && text.contains("BudgetedWidget × 10 at")
        }
        #expect(recorded.withLock { $0 } == [test.sourceLocation.line])
        try await trait.provideScope(for: test, testCase: Test.Case.current) { _ = makeBudgetedWidgets(4) }
    }

    @Test("a budget inside a leak check, and a check inside a budget: both see the whole body")
    func nestedWithLeakCheck() {
        let leaks = issues {
            assertNoLeaks { assertAllocations(atMost: 2) { makeFamily(leak: true) } }
        }
        #expect(leaks.count == 1, "the budget holds (2 objects); the enclosing leak check reports the cycle")
        #expect(leaks.first?.text.contains("ScopedParent.child → ScopedChild.parent → ScopedParent") == true)
        let both = issues {
            assertAllocations(atMost: 1) { assertNoLeaks { makeFamily(leak: true) } }
        }
        #expect(both.count == 2, "the leak check fails, and the enclosing budget counts its body's objects")
        // The leak check's own work (its report files, the issue it records) is not counted; this test's
        // `matching:` closure, which Swift Testing calls with the issue, is the test's own code.
        let budget = both.first { $0.text.contains("over the budget") }?.text ?? ""
        #expect(budget.contains("ScopedParent × 1 at Fixtures.swift:17 in makeFamily(leak:)"), "\(budget)")
        #expect(budget.contains("ScopedChild × 1 at Fixtures.swift:18 in makeFamily(leak:)"), "\(budget)")
        #expect(!budget.contains("LeakGraph"), "\(budget)")
    }

    @Test("parallel tests each count only their own", arguments: [0, 1, 2])
    func parallel(index: Int) throws {
        let expected = [100, 200, 300][index]
        let (_, allocations) = try LeakChecker.countingAllocations {
            switch index {
            case 0: makeTaggedWidgets(ParallelBudgetA.self, expected)
            case 1: makeTaggedWidgets(ParallelBudgetB.self, expected)
            default: makeTaggedWidgets(ParallelBudgetC.self, expected)
            }
        }
        #expect(allocations.objects == expected, "\(allocations.text())")
        #expect(allocations.types.count == 1)
    }
}
