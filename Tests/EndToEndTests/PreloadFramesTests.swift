import Foundation
import Testing

// The preload library's side of the frame-count contract, without the CLI (which validates
// `--frames` itself): a LEAKGRAPH_FRAMES the library cannot use is an error written beside the
// report path, never a silent fallback to the default.

@Suite("Preload library: LEAKGRAPH_FRAMES", .timeLimit(.minutes(10)))
struct PreloadFramesTests {
    @Test("an invalid LEAKGRAPH_FRAMES is written to <output>.error and nothing is checked", arguments: ["many", "65", "-1", "16 "])
    func invalidFrames(_ value: String) async throws {
        let program = try await FixtureBuilds.shared.executable("SelfReference", .debug).path
        let folder = try Scratch.directory("frames")
        let output = folder.appendingPathComponent("report.json").path
        let result = try await runProcess(
            URL(fileURLWithPath: program), arguments: ["leak"],
            environment: cleanEnvironment(adding: [
                "LD_PRELOAD": try BuildProducts.preloadLibrary().path, "LEAKGRAPH_OUTPUT": output, "LEAKGRAPH_FRAMES": value,
            ]))
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        let error = try String(contentsOfFile: output + ".error", encoding: .utf8)
        #expect(error == "LEAKGRAPH_FRAMES must be a whole number of frames from 0 to 64, not '\(value)'")
        #expect(!FileManager.default.fileExists(atPath: output), "no report without a valid frame count")
    }

    @Test("a valid LEAKGRAPH_FRAMES is used: 0 records no creation stacks")
    func zeroFrames() async throws {
        let program = try await FixtureBuilds.shared.executable("SelfReference", .debug).path
        let run = try await LeakgraphRun.run(program, ["leak"], options: ["--frames", "0"])
        let report = try #require(run.report, "\(run.result.summary)")
        #expect(report.summary.leakedObjects > 0)
        #expect(report.leaks.allSatisfy { $0.backtrace.isEmpty }, "no frames recorded")
    }
}
