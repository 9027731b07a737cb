import Foundation
import LeakGraphSymbolication
import Testing

@Suite("Executable inspection")
struct ExecutableInspectionTests {
    /// Compiles a two-line Swift program with `swiftc` (from PATH) into a fresh temporary directory, and
    /// passes the executable's path to `body`; the directory is removed afterwards.
    static func withSwiftProgram(options: [String], _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("leakgraph-inspection-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = directory.appendingPathComponent("main.swift")
        try "final class Box { var next: Box? }\nprint(Box().next == nil)\n".write(
            to: source, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("program").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swiftc"] + options + [source.path, "-o", output]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swiftc \(options) failed")
        try body(output)
    }

    @Test("a Swift program linked as usual needs libswiftCore.so, found through its RUNPATH")
    func dynamicSwift() throws {
        try Self.withSwiftProgram(options: []) { program in
            let linkage = SwiftRuntimeLinkage.inspect(executableAt: program)
            guard case .dynamic(let runtimePath) = linkage else {
                Issue.record("expected .dynamic, got \(linkage)")
                return
            }
            let path = try #require(runtimePath)
            #expect(path.hasSuffix("/libswiftCore.so"))
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a program built with -static-stdlib has the runtime linked in")
    func staticSwift() throws {
        try Self.withSwiftProgram(options: ["-static-stdlib"]) { program in
            #expect(SwiftRuntimeLinkage.inspect(executableAt: program) == .staticallyLinked)
        }
    }

    @Test("the test binary itself links the runtime dynamically")
    func testBinary() throws {
        let linkage = SwiftRuntimeLinkage.inspect(executableAt: "/proc/self/exe")
        guard case .dynamic(let runtimePath?) = linkage else {
            Issue.record("expected .dynamic with a path, got \(linkage)")
            return
        }
        #expect(runtimePath.hasSuffix("/libswiftCore.so"))
    }

    @Test("/bin/ls is ELF without Swift")
    func notSwift() {
        #expect(SwiftRuntimeLinkage.inspect(executableAt: "/bin/ls") == .notSwift)
    }

    @Test("a script and a missing file are not ELF, with a reason")
    func notELF() throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("leakgraph-\(UUID().uuidString).sh")
        try "#!/bin/sh\necho hi\n".write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        guard case .notELF(let reason) = SwiftRuntimeLinkage.inspect(executableAt: script.path) else {
            Issue.record("a shell script was taken for ELF")
            return
        }
        #expect(reason.contains("not an ELF file"))
        guard case .notELF(let missing) = SwiftRuntimeLinkage.inspect(executableAt: "/nonexistent/leakgraph-app") else {
            Issue.record("a missing file was taken for ELF")
            return
        }
        #expect(missing.contains("No such file"))
    }
}
