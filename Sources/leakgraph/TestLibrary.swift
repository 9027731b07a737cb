/// A testing library whose tests a `…PackageTests.xctest` bundle runs: one `leakgraph test` run each.
///
/// On Linux the bundle is an executable that runs only its XCTest tests unless given
/// `--testing-library swift-testing` (as `swift test` does, in a second process).
enum TestLibrary: CaseIterable {
    case xctest
    case swiftTesting

    /// The name shown in the report (``LeakGraphReport/LeakReport/Cycle/run``) and in messages.
    var name: String {
        switch self {
        case .xctest: "XCTest"
        case .swiftTesting: "Swift Testing"
        }
    }

    /// The arguments that make the bundle run this library's tests.
    var arguments: [String] {
        switch self {
        case .xctest: []
        case .swiftTesting: ["--testing-library", "swift-testing"]
        }
    }

    /// Swift Testing's exit status when it found no tests to run or list (`EXIT_NO_TESTS_FOUND`), which
    /// `swift test` takes as success.
    static let noTestsFoundStatus: Int32 = 69

    /// The number of this library's tests in the bundle at `bundle`, from its `--list-tests` (run without
    /// the preload library; a fraction of a second), or `nil` when the listing failed.
    ///
    /// Swift Testing lists nothing and exits with ``noTestsFoundStatus`` when the bundle has none of its
    /// tests: 0. A bundle whose `main` is XCTest's own (a package's `Tests/LinuxMain.swift` calling
    /// `XCTMain`) ignores `--testing-library swift-testing` and answers with XCTest's listing: it runs no
    /// Swift Testing tests either, so 0, and its XCTest tests are not run a second time.
    func testCount(bundle: String, environment: [String: String]) -> Int? {
        guard
            let listing = try? CapturedProcess.run(
                bundle, arguments + ["--list-tests"], environment: environment, capturesStandardError: false)
        else {
            return nil
        }
        let lines = listing.output.split(whereSeparator: \.isNewline)
        // XCTest starts with `Listing N tests in …:` and a blank line; then one test id per line.
        let isXCTestListing = lines.contains { $0.hasPrefix("Listing ") }
        switch self {
        case .swiftTesting where listing.termination == .exited(Self.noTestsFoundStatus) && lines.isEmpty:
            return 0
        case .swiftTesting where isXCTestListing:
            return 0
        default:
            guard listing.succeeded else { return nil }
            return lines.filter { !$0.hasPrefix("Listing ") }.count
        }
    }
}
