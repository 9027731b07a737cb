import Foundation
import Synchronization
import LeakGraph
import LeakGraphTesting
import Testing

/// `assertNoLeaks` in Swift Testing: leaking bodies fail with the leak trace at the caller's line,
/// fixed bodies pass, and only what the body allocated is reported.
@Suite("assertNoLeaks")
struct AssertNoLeaksTests {
    @Test("a leaking body fails at the call's line with the leak trace, suspect, fix, creation site and report paths")
    func leakingBodyFails() {
        let line = #line + 2
        withKnownIssue {
            assertNoLeaks { makeFamily(leak: true) }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == line
                && text.contains("2 objects leaked")
                && text.contains("ROOT CYCLE #1")
                && text.contains("ScopedParent.child → ScopedChild.parent → ScopedParent")
                && text.contains("Fix: make it `weak var parent`")
                && text.contains("created at Fixtures.swift:")
                && text.contains("Report: /") && text.contains(".html")
        }
    }

    @Test("the report files named in the failure exist and hold the leak")
    func reportFilesWritten() throws {
        let messages = Mutex<[String]>([])
        withKnownIssue {
            assertNoLeaks { makeFamily(leak: true) }
        } matching: { issue in
            messages.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        let message = try #require(messages.withLock { $0.first })
        let json = try #require(message.split(separator: " ").first { $0.hasSuffix(".json)") || $0.hasSuffix(".json") })
        let path = String(json.trimmingCharacters(in: CharacterSet(charactersIn: "),")))
        let report = try LeakReport.decode(from: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(report.leaks.map(\.type).sorted() == ["LeakGraphTestingTests.ScopedChild", "LeakGraphTestingTests.ScopedParent"])
        #expect(path.contains("/.build/leakgraph-reports/AssertNoLeaksTests."))
    }

    @Test("with .scanningForOrphans a balanced Unmanaged.passRetained reports nothing; without the option a dropped one is not looked for")
    func orphanScanOption() throws {
        // The positive case runs in a process of its own (ScopedOrphan, EndToEndTests): here, parallel
        // tests' stacks and buffers hold copies of many addresses, which make an orphan look held (a
        // missed orphan, never a false one).
        let (_, balanced) = try LeakChecker.checkingLeaks(.scanningForOrphans) { makeOrphanedToken(balanced: true) }
        #expect(balanced.cycles.isEmpty)
        let (_, unscanned) = try LeakChecker.checkingLeaks { makeOrphanedToken(balanced: false) }
        #expect(unscanned.cycles.isEmpty, "without the option no thread is stopped and no orphan reported")
    }

    @Test("a fixed body passes and the body's value is returned")
    func fixedBodyPasses() {
        let value = assertNoLeaks {
            makeFamily(leak: false)
            return 42
        }
        #expect(value == 42)
    }

    @Test("objects leaked before the check are never reported by it")
    func earlierLeaksAreNotReported() {
        makeEarlyLeak()
        assertNoLeaks { makeFamily(leak: false) }
    }

    @Test("ignored types are left out, with what their cycles hold")
    func ignoringTypes() {
        assertNoLeaks(.ignoring(types: ["ScopedChild"])) { makeFamily(leak: true) }
        assertNoLeaks(.ignoring(types: ["LeakGraphTestingTests.ScopedParent"])) { makeFamily(leak: true) }
    }

    @Test("an async body and the child tasks it creates are checked")
    func asyncBodyAndChildTasks() async {
        await withKnownIssue {
            await assertNoLeaks {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { makeLooper(TagA.self) }
                }
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("Looper<LeakGraphTestingTests.TagA>") && text.contains("onTick")
        }
    }

    @Test("a cycle broken asynchronously is a leak while it lasts, and none after a settle period")
    func settle() async throws {
        // Broken only once the check is over: both passes see it.
        let gate = DispatchSemaphore(value: 0)
        try await withKnownIssue {
            try await assertNoLeaks {
                makeSlowlyReleasedPair(delay: .milliseconds(1), after: gate)
                try await Task.sleep(for: .zero)
            }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains("SlowOwner")
        }
        gate.signal()
        await assertNoLeaks(.settle(.seconds(3))) {
            makeSlowlyReleasedPair(delay: .milliseconds(10))
            await Task.yield()
        }
    }
}

/// Tests that run in parallel (Swift Testing's default) and overlap in time: each sees only its
/// own leak.
@Suite("assertNoLeaks in parallel tests")
struct ParallelAttributionTests {
    /// Leaks a looper of `tag` inside `assertNoLeaks`, sleeping so the tests' scopes overlap, and
    /// expects exactly that leak.
    func leakAlone<Tag>(_ tag: Tag.Type) async throws {
        let own = "Looper<LeakGraphTestingTests.\(Tag.self)>"
        let others = ["TagA", "TagB", "TagC", "TagD"].filter { $0 != "\(Tag.self)" }
        try await withKnownIssue {
            try await assertNoLeaks {
                makeLooper(tag)
                try await Task.sleep(for: .milliseconds(200))
            }
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains(own) && text.contains("1 object leaked") && !others.contains { text.contains("Looper<LeakGraphTestingTests.\($0)>") }
        }
    }

    @Test func leaksB() async throws { try await leakAlone(TagB.self) }
    @Test func leaksC() async throws { try await leakAlone(TagC.self) }
    @Test func leaksD() async throws { try await leakAlone(TagD.self) }

    @Test("a clean test beside leaking ones passes")
    func clean() async throws {
        try await assertNoLeaks {
            makeFamily(leak: false)
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// The `.checksForLeaks` trait.
@Suite("checksForLeaks trait")
struct ChecksForLeaksTraitTests {
    @Test(.checksForLeaks) func cleanTestPasses() {
        makeFamily(leak: false)
    }

    @Test("a leaking test fails at its declaration with the leak trace")
    func leakingTestFails() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await ChecksForLeaksTrait.checksForLeaks.provideScope(
                for: test, testCase: Test.Case.current, performing: { makeFamily(leak: true) })
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return issue.sourceLocation?.line == test.sourceLocation.line && text.contains("ScopedChild.parent")
        }
    }

    @Test("the trait scopes test cases, not suites or a parameterized function as a whole")
    func scopeProvider() throws {
        let test = try #require(Test.current)
        let trait = ChecksForLeaksTrait.checksForLeaks
        #expect(trait.scopeProvider(for: test, testCase: Test.Case.current) != nil)
        #expect(trait.scopeProvider(for: test, testCase: nil) == nil)
        #expect(trait.isRecursive)
    }

    @Test("options given to the trait apply", .checksForLeaks(.ignoring(types: ["ScopedParent"])))
    func traitOptions() {
        makeFamily(leak: true)
    }
}

/// A search box that debounces with a `DispatchWorkItem` capturing itself strongly (`weakly`: `[weak self]`).
final class DebouncedSearch {
    var pending: DispatchWorkItem?
    var query = ""

    @inline(never)
    func type(_ text: String, weakly: Bool) {
        pending?.cancel()
        pending = weakly
            ? DispatchWorkItem { [weak self] in self?.query = text }
            : DispatchWorkItem { self.query = text }
    }
}

extension AssertNoLeaksTests {
    @Test("in-process, a DispatchWorkItem whose block captures its owner is a cycle; [weak self] is clean")
    func workItemInProcess() throws {
        let (_, leaking) = try LeakChecker.checkingLeaks { DebouncedSearch().type("swift", weakly: false) }
        #expect(leaking.cycles.count == 1)
        // The work item, its owner, and the closure's context (it captures `text` and `self`).
        #expect(Set(leaking.leaks.map(\.type)).isSuperset(of: ["LeakGraphTestingTests.DebouncedSearch", "Dispatch.DispatchWorkItem"]))
        #expect(leaking.leaks.count == 3, "\(leaking.leaks.map(\.type))")
        #expect(leaking.references.contains { $0.label == "_block (closure)" })
        let (_, fixed) = try LeakChecker.checkingLeaks { DebouncedSearch().type("swift", weakly: true) }
        #expect(fixed.cycles.isEmpty)
    }
}
