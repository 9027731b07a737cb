import LeakGraphReport

extension TestAllocations {
    /// Tests listed by the text of `leakgraph test --allocations` (the JSON has them all).
    public static let textLimit = 25

    /// The per-test section of the text: each test's objects and bytes made and alive at its end, the
    /// most objects first, with its top site (ending with a newline).
    ///
    /// ```
    /// ALLOCATIONS BY TEST (2 tests)
    ///       objects         bytes     alive  test, and where it allocated most
    ///           201         5,632         0  ThumbnailBudgetTests/testRender (XCTest): Thumbnail × 100 at …
    /// ```
    public static func text(_ tests: [TestAllocations]) -> String {
        let sorted = tests.sorted { ($1.allocations.objects, $0.test) < ($0.allocations.objects, $1.test) }
        var lines = ["ALLOCATIONS BY TEST (\(ReportNaming.count(tests.count, "test")))"]
        func right(_ value: Int, _ width: Int) -> String {
            let text = ReportNaming.grouped(value)
            return String(repeating: " ", count: max(0, width - text.count)) + text
        }
        lines.append("      objects         bytes     alive  test, and where it allocated most")
        for test in sorted.prefix(textLimit) {
            let top = test.allocations.sites.first.map { ": " + $0.text } ?? ""
            lines.append(
                "\(right(test.allocations.objects, 13)) \(right(test.allocations.bytes, 13)) \(right(test.allocations.aliveObjects, 9))  "
                    + "\(test.test)\(test.run.map { " (\($0))" } ?? "")\(top)")
        }
        if tests.count > textLimit {
            lines.append(
                "  … and \(ReportNaming.count(tests.count - textLimit, "more test")) (every one in the JSON report)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
