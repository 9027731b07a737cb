import Foundation
import Testing

/// A `LeakMonitor` checking every 30 ms while 8 threads churn objects (Tests/Fixtures/MonitorStress):
/// the four leaks made at known moments are each reported exactly once, nothing else ever, no crash.
@Suite("LeakMonitor under stress", .timeLimit(.minutes(10)))
struct MonitorStressTests {
    /// The type that marks each leak the fixture makes, and the members its cycle has.
    static let expected: [String: String] = [
        "Fixture.AlphaOwner": "Fixture.AlphaOwner + Fixture.AlphaPartner",
        "Fixture.BetaController": "Fixture.BetaController",
        "Fixture.GammaHub": "Fixture.GammaChild + Fixture.GammaHub + Swift._DictionaryStorage<Swift.String, Fixture.GammaChild>",
        "Fixture.DeltaOwner": "Fixture.DeltaOwner + Fixture.DeltaPartner",
    ]

    @Test("8 churning threads, 4 leaks at known moments: each reported once, nothing else", arguments: Optimization.allCases)
    func stress(_ optimization: Optimization) async throws {
        let program = try await InProcessBuilds.shared.executable("MonitorStress", optimization, harness: false)
        let result = try await runProcess(program, arguments: ["2500"], environment: cleanEnvironment())
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        let reported = lines.filter { $0.hasPrefix("new ") }
        var types: [String] = []
        for line in reported {
            // new <check> <fingerprint> <types…>
            let fields = line.split(separator: " ", maxSplits: 3)
            #expect(fields.count == 4, "\(line)")
            if fields.count == 4 { types.append(String(fields[3])) }
        }
        #expect(types.sorted() == Self.expected.values.sorted(), "reported: \(reported) — \(result.summary)")
        let statistics = try #require(lines.first { $0.hasPrefix("checks ") }, "\(result.summary)")
        #expect(statistics.contains(" skipped 0 "), "\(statistics)")
    }
}
