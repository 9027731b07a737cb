import Foundation
import Testing

@Suite("The tests' child processes")
struct ProcessRunnerTests {
    @Test("a child started by the tests blocks no signal: SIGTERM ends it as it ends a program started from a shell")
    func childTakesSignals() async throws {
        // The test itself runs on a pool thread that blocks SIGTERM; the child must not inherit that.
        let result = try await runProcess(
            URL(fileURLWithPath: "/bin/grep"), arguments: ["^SigBlk:", "/proc/self/status"], environment: cleanEnvironment())
        #expect(result.status == 0, "\(result.summary)")
        let mask = result.standardOutput.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(mask.flatMap { UInt64($0, radix: 16) } == 0, "\(result.standardOutput)")
    }
}
