import LeakGraphRecording
import LeakGraphReport

extension LeakChecker {
    /// Names, for each root cycle of `report` (a check of this process), the tests that made its
    /// members (`LeakReport.Cycle.tests`), from the test scopes their records carry — opened by the
    /// test observer `leakgraph test` loads (`AllocationScope/beginTest(label:)`). When test scopes had
    /// to be recycled (more tests than scope ids), a diagnostic says that the first tests' objects read
    /// as made outside any test.
    ///
    /// - Complexity: O(*n*) record lookups for *n* leaked objects.
    public static func attributeTests(in report: inout LeakReport) {
        var labels: [UInt32: String?] = [:]
        report.attributeTests { leak in
            guard let address = UInt(leak.address.dropFirst(2), radix: 16) else { return nil }
            let scope = AllocationScope.scopeID(of: address)
            guard scope != 0 else { return nil }
            if let known = labels[scope] { return known }
            let label = AllocationScope.testLabel(ofScope: scope)
            labels[scope] = label
            return label
        }
        let recycled = AllocationScope.recycledTestScopes
        if recycled > 0 {
            report.diagnostics.append(
                WalkDiagnostic(
                    typeName: "(tests)",
                    reason: "more tests ran than the \(AllocationScope.idLimit) scope ids: the marks of the first "
                        + "\(recycled) were recycled, so their objects read as made outside any test",
                    objectCount: 0))
        }
    }
}
