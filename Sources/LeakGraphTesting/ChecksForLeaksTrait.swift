import Foundation
import LeakGraph
import Testing

/// A Swift Testing trait that checks each test it applies to for leaks, as `assertNoLeaks` does
/// around the whole test body: every object the test allocated (and the tasks it created) that is
/// leaked when it returns fails it, at the test's declaration.
///
/// ```swift
/// @Test(.checksForLeaks) func chatScreenIsReleased() { … }
///
/// @Suite(.checksForLeaks(.ignoring(types: ["ImageCache"])))
/// struct FeedTests { … }
/// ```
///
/// On a suite it applies to every test in it, nested suites included; each test (each case of a
/// parameterized test) gets its own scope, carried in a task-local value, so tests running in
/// parallel are checked apart (see `LeakGraph/LeakCheckScope` for what is guaranteed).
public struct ChecksForLeaksTrait: TestTrait, SuiteTrait, TestScoping {
    /// The options of each check.
    public var options: LeakCheckOptions

    /// Applies to the tests of nested suites too.
    public var isRecursive: Bool { true }

    /// Scopes each test case: not a suite, nor a parameterized test function as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    /// Runs the test case in a leak-check scope and records a failure for what it leaked.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let location = TestLocation(test.sourceLocation)
        guard let scope = LeakFailure.openScope([options], what: "checksForLeaks", at: location) else {
            try await function()
            return
        }
        let (_, report) = try await scope.check(function)
        LeakFailure(report: report, location: location) {
            ".checksForLeaks on \(test.id.nameComponents.joined(separator: "."))"
                + " (\((test.sourceLocation.fileID as NSString).lastPathComponent):\(test.sourceLocation.line))"
        }.recordIfLeaking()
    }
}

extension Trait where Self == ChecksForLeaksTrait {
    /// Checks each test for leaks (see ``ChecksForLeaksTrait``).
    public static var checksForLeaks: Self { ChecksForLeaksTrait(options: LeakCheckOptions()) }

    /// Checks each test for leaks with `options`: `.ignoring(types:)`, `.ignoring(fingerprints:)`,
    /// `.settle(_:)`, `.frames(_:)`.
    public static func checksForLeaks(_ options: LeakCheckOptions...) -> Self {
        ChecksForLeaksTrait(options: LeakCheckOptions(combining: options))
    }
}
