import Foundation
import LeakGraphReport
import Testing

// A program that crashes under `leakgraph run` leaves a report marked crashed: the signal, the
// faulting thread's frames (symbolized by the CLI after the process ended) and what the hook had
// recorded; no heap walk. leakgraph ends with the program's signal.

@Suite("leakgraph run and crashes", .timeLimit(.minutes(10)))
struct CrashTests {
    @Test(
        "a crash leaves a report marked crashed, with the frames and the counts",
        arguments: [("segv", SIGSEGV, "SIGSEGV"), ("trap", SIGILL, "SIGILL"), ("abort", SIGABRT, "SIGABRT")])
    func crash(_ mode: String, _ signal: Int32, _ name: String) async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
        let run = try await LeakgraphRun.run(program, [mode], environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(run.result.signaled && run.result.status == signal, "leakgraph ends as the program did: \(run.result.summary)")
        #expect(
            run.toolMessages.last
                == "leakgraph: the program crashed with \(name); no leak check ran; summary written to \(run.textPath); leakgraph ends with \(name) too",
            "\(run.result.summary)")
        let report = try #require(run.report, "\(run.result.summary)")
        let crash = try #require(report.crash)
        #expect(crash.signal == name && report.verdict == .notChecked && report.leaks.isEmpty)
        #expect(report.program.exitStatus == 128 + Int(signal))
        #expect(crash.allocations >= 2 && crash.liveObjects >= 2, "the leaked pair was recorded: \(crash)")
        #expect(!crash.frames.isEmpty)
        if mode != "abort" {
            // abort() faults inside glibc, built without frame pointers: the walk stops there.
            #expect(
                crash.frames.contains { $0.function == "main" && $0.file?.hasSuffix("LeakAndEnd/main.swift") == true },
                "\(crash.frames)")
        }
        if mode == "segv" {
            #expect(crash.faultAddress == "0x8")
        }
        if mode == "trap" {
            #expect(crash.frames.contains { $0.function.hasPrefix("Fixture.trap(") }, "\(crash.frames)")
        }
        #expect(run.jsonText?.contains("\"verdict\" : \"notChecked\"") == true)
        #expect(run.text?.contains("crashed with \(name)") == true && run.text?.contains("Crashed thread:") == true)
    }

    @Test("the crash report is read back by leakgraph report")
    func readBack() async throws {
        _ = try BuildProducts.preloadLibrary()
        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
        let folder = try Scratch.directory("crash-read-back")
        let json = folder.appendingPathComponent("crash.json").path
        let run = try await runProcess(
            try BuildProducts.leakgraph(), arguments: ["run", "--json", json, "--", program, "segv"],
            environment: cleanEnvironment(adding: ["SWIFT_BACKTRACE": "enable=no"]))
        #expect(run.signaled && run.status == SIGSEGV, "\(run.summary)")
        let rendered = try await runProcess(try BuildProducts.leakgraph(), arguments: ["report", json], environment: cleanEnvironment())
        #expect(!rendered.signaled && rendered.status == 0, "\(rendered.summary)")
        #expect(rendered.standardOutput.contains("crashed with SIGSEGV at address 0x8; no leak check ran."))
        #expect(run.standardError.contains(rendered.standardOutput), "the same text as the run printed")
    }
}
