import Foundation
import LeakGraphReport
import Testing

// Where `leakgraph run` writes its outputs: every path checked before the program runs, regular
// files replaced atomically, symlinks, devices and the standard streams written through, two
// outputs on one file refused, and the text summary never lost.

@Suite("leakgraph run outputs", .timeLimit(.minutes(10)))
struct OutputFileTests {
    /// Runs the built `leakgraph` with `arguments`.
    private func leakgraph(_ arguments: [String]) async throws -> ProcessResult {
        try await runProcess(try BuildProducts.leakgraph(), arguments: arguments, environment: cleanEnvironment())
    }

    /// The `LeakAndEnd` fixture (leaks Owner ⇄ Partner), built once.
    private func leaking() async throws -> String {
        _ = try BuildProducts.preloadLibrary()
        return try await FixtureBuilds.shared.executable("LeakAndEnd", .debug).path
    }

    /// The Probe fixture, which prints `argument count N` when it runs.
    private func probe() async throws -> String {
        _ = try BuildProducts.preloadLibrary()
        return try await FixtureBuilds.shared.executable("Probe", .debug).path
    }

    /// A folder no file can be created in: a folder without write permission, or — for root, whom
    /// permissions do not stop — `/sys`, where nobody can create files.
    private func readOnlyFolder() throws -> String {
        if geteuid() == 0 { return "/sys" }
        let folder = try Scratch.directory("read-only")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        return folder.path
    }

    @Test("a read-only folder fails before the program runs, with exit status 2", arguments: ["--json", "--text", "--svg"])
    func readOnlyFolder(_ flag: String) async throws {
        let folder = try readOnlyFolder()
        let result = try await leakgraph(["run", flag, folder + "/out", "--", try await probe()])
        #expect(!result.signaled && result.status == 2, "\(result.summary)")
        #expect(result.standardError.hasPrefix("leakgraph: cannot write the "), "\(result.summary)")
        #expect(result.standardError.hasSuffix("to \(folder)/out: the directory \(folder) is not writable (Permission denied)\n"), "\(result.summary)")
        #expect(!result.standardOutput.contains("argument count"), "the program must not run: \(result.summary)")
    }

    @Test("a missing folder fails before the program runs")
    func missingFolder() async throws {
        let result = try await leakgraph(["run", "--text", "/nonexistent-dir/out.txt", "--", try await probe()])
        #expect(!result.signaled && result.status == 2)
        #expect(result.standardError == "leakgraph: cannot write the text summary to /nonexistent-dir/out.txt: the directory /nonexistent-dir does not exist\n")
        #expect(!result.standardOutput.contains("argument count"))
    }

    @Test("a symlink stays a symlink; the report goes where it points")
    func symlink() async throws {
        let folder = try Scratch.directory("symlink")
        let target = folder.appendingPathComponent("target.json")
        let link = folder.appendingPathComponent("link.json")
        try Data("old".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "target.json")
        let result = try await leakgraph(["run", "--json", link.path, "--", try await leaking(), "exit", "0"])
        #expect(!result.signaled && result.status == LeakgraphRun.leakStatus, "\(result.summary)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "target.json")
        let report = try LeakReport.decode(from: try Data(contentsOf: target))
        #expect(report.verdict == .leaksFound)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["link.json", "target.json"], "no temporary file is left behind")
    }

    @Test("--json /dev/stdout writes the report to standard output, the text summary stays on standard error")
    func standardOutput() async throws {
        let result = try await leakgraph(["run", "--json", "/dev/stdout", "--", try await leaking(), "exit", "0"])
        #expect(!result.signaled && result.status == LeakgraphRun.leakStatus, "\(result.summary)")
        let report = try LeakReport.decode(from: Data(result.standardOutput.utf8))
        #expect(report.summary.leakedObjects == 2)
        #expect(result.standardError.contains("ROOT CYCLE #1"))
    }

    @Test("a device is written through, never replaced; a write that fails still prints the text summary")
    func device() async throws {
        let result = try await leakgraph(["run", "--json", "/dev/full", "--", try await leaking(), "exit", "0"])
        #expect(!result.signaled && result.status == 2, "\(result.summary)")
        var info = stat()
        #expect(lstat("/dev/full", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "/dev/full is still a device")
        #expect(result.standardError.contains("ROOT CYCLE #1"), "the text summary is printed: \(result.summary)")
        #expect(result.standardError.contains("leakgraph: cannot write the JSON report to /dev/full: No space left on device\n"))
        #expect(result.standardError.hasSuffix("the program exited with status 0; exit status 2 (an output could not be written)\n"))

        let text = try await leakgraph(["run", "--text", "/dev/full", "--", try await leaking(), "exit", "0"])
        #expect(!text.signaled && text.status == 2, "\(text.summary)")
        #expect(text.standardError.contains("ROOT CYCLE #1"), "the text summary goes to the terminal instead: \(text.summary)")
        #expect(text.standardError.contains("leakgraph: cannot write the text summary to /dev/full: No space left on device\n"))
    }

    @Test("two outputs on one file, by name or through a symlink, are refused before the program runs")
    func sameFile() async throws {
        let folder = try Scratch.directory("same-file")
        let file = folder.appendingPathComponent("out").path
        let link = folder.appendingPathComponent("link").path
        try Data().write(to: URL(fileURLWithPath: file))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
        let program = try await probe()

        let byName = try await leakgraph(["run", "--json", file, "--text", file, "--", program])
        #expect(!byName.signaled && byName.status == 2, "\(byName.summary)")
        #expect(byName.standardError == "leakgraph: --json and --text name the same file, and one would overwrite the other; give each output its own path\n")
        #expect(!byName.standardOutput.contains("argument count"))

        let byLink = try await leakgraph(["run", "--text", file, "--html", link, "--", program])
        #expect(!byLink.signaled && byLink.status == 2, "\(byLink.summary)")
        #expect(byLink.standardError == "leakgraph: --text and --html name the same file (\(file) and \(link)), and one would overwrite the other; give each output its own path\n")
        #expect(!byLink.standardOutput.contains("argument count"))

        let new = folder.appendingPathComponent("new.json").path
        let relative = try await leakgraph(["report", "--json", new, "--text", folder.path + "/./new.json", "/nonexistent.json"])
        #expect(!relative.signaled && relative.status == 2)
        #expect(relative.standardError.hasPrefix("leakgraph: --json and --text name the same file"), "\(relative.summary)")
    }

    @Test("an existing regular file is replaced atomically and keeps its permissions")
    func replacesRegularFile() async throws {
        let folder = try Scratch.directory("replace")
        let file = folder.appendingPathComponent("report.txt")
        try Data("old text".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        let result = try await leakgraph(["run", "--text", file.path, "--", try await leaking(), "exit", "0"])
        #expect(!result.signaled && result.status == LeakgraphRun.leakStatus, "\(result.summary)")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("Process LeakAndEnd"), "\(text)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report.txt"])
    }
}
