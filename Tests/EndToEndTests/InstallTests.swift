import Foundation
import LeakGraphReport
import Testing

// `scripts/install` and `leakgraph --version`: an installed leakgraph finds its preload library
// relative to itself and checks a program from there.

@Suite("installing leakgraph", .timeLimit(.minutes(10)))
struct InstallTests {
    /// The repository's root folder.
    static let root = FixtureBuilds.fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()

    @Test("leakgraph --version names the version and the report schema")
    func version() async throws {
        let result = try await runProcess(try BuildProducts.leakgraph(), arguments: ["--version"], environment: cleanEnvironment())
        #expect(!result.signaled && result.status == 0, "\(result.summary)")
        #expect(result.standardOutput.hasPrefix("leakgraph "), "\(result.summary)")
        #expect(result.standardOutput.contains("report schema \(LeakReport.currentSchemaVersion)"))
    }

    @Test("scripts/install into a temporary prefix; the installed leakgraph checks a program from there")
    func installAndRun() async throws {
        _ = try BuildProducts.preloadLibrary()
        let prefix = try Scratch.directory("prefix").appendingPathComponent("usr local")
        let install = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["bash", Self.root.appendingPathComponent("scripts/install").path, "--prefix", prefix.path, "--from", BuildProducts.directory.path],
            environment: cleanEnvironment())
        #expect(!install.signaled && install.status == 0, "\(install.summary)")
        let installed = prefix.appendingPathComponent("bin/leakgraph")
        #expect(FileManager.default.isExecutableFile(atPath: installed.path))
        #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("lib/leakgraph/libLeakGraphPreload.so").path))
        #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("lib/leakgraph/libLeakGraphPreloadChecker.so").path))
        #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("lib/leakgraph/libLeakGraphTestObserver.so").path))
        #expect(install.standardError.contains("installed \(installed.path) (leakgraph "), "\(install.summary)")

        let program = try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
        let json = prefix.appendingPathComponent("report.json")
        let run = try await runProcess(installed, arguments: ["run", "--json", json.path, "--", program, "exit", "0"], environment: cleanEnvironment())
        #expect(!run.signaled && run.status == LeakgraphRun.leakStatus, "\(run.summary)")
        let report = try LeakReport.decode(from: try Data(contentsOf: json))
        #expect(Set(report.leaks.map(\.type)) == ["Fixture.Owner", "Fixture.Partner"])

        // A leakgraph copied alone, without its library, says where it looked.
        let lonely = try Scratch.directory("lonely").appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: installed, to: lonely.appendingPathComponent("leakgraph"))
        let missing = try await runProcess(
            lonely.appendingPathComponent("leakgraph"), arguments: ["run", "--", program, "exit", "0"], environment: cleanEnvironment())
        #expect(!missing.signaled && missing.status == 2, "\(missing.summary)")
        #expect(missing.standardError.hasPrefix("leakgraph: cannot find libLeakGraphPreload.so beside the leakgraph executable (looked in \(lonely.path)/libLeakGraphPreload.so and "), "\(missing.summary)")
        #expect(missing.standardError.contains("install LeakGraph with scripts/install"))

        // The preload library without the checker it loads beside it: leakgraph says so before running anything.
        let library = lonely.deletingLastPathComponent().appendingPathComponent("lib/leakgraph")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: prefix.appendingPathComponent("lib/leakgraph/libLeakGraphPreload.so"), to: library.appendingPathComponent("libLeakGraphPreload.so"))
        let noChecker = try await runProcess(
            lonely.appendingPathComponent("leakgraph"), arguments: ["run", "--", program, "exit", "0"], environment: cleanEnvironment())
        #expect(!noChecker.signaled && noChecker.status == 2, "\(noChecker.summary)")
        #expect(
            noChecker.standardError.hasPrefix(
                "leakgraph: cannot find libLeakGraphPreloadChecker.so beside \(library.path)/libLeakGraphPreload.so, which loads it"),
            "\(noChecker.summary)")
    }

    @Test("scripts/install refuses an unknown argument")
    func badArgument() async throws {
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), arguments: ["bash", Self.root.appendingPathComponent("scripts/install").path, "--bogus"],
            environment: cleanEnvironment())
        #expect(!result.signaled && result.status == 2)
        #expect(result.standardError.hasPrefix("scripts/install: unknown argument '--bogus'\n"))
    }
}
