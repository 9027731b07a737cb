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

    /// The number of this library's tests in the bundle at `bundle`, from its `--list-tests` (run without
    /// the preload library; a fraction of a second), or `nil` when the listing failed.
    func testCount(bundle: String, environment: [String: String]) -> Int? {
        guard let listing = try? CapturedProcess.run(
            bundle, arguments + ["--list-tests"], environment: environment, capturesStandardError: false),
            listing.succeeded
        else {
            return nil
        }
        // XCTest starts with `Listing N tests in …:` and a blank line; then one test id per line.
        return listing.output.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("Listing ") }.count
    }
}
