import Foundation
import Testing

/// A small optimized program, compiled into a temporary directory and run as a child process, that prints the
/// return addresses of its stack (captured under an inlined function) and waits for a line on standard input.
///
/// The symbolizer resolves addresses of a live process, so it is pointed at the child's process id while the
/// child waits. The test process itself is built without optimization, where nothing is inlined.
final class InlinedProgram {
    /// The source file, as compiled (its path is what DWARF names).
    let sourcePath: String
    /// The source text.
    let source: String
    /// The running child.
    let process: Process
    /// The return addresses the child printed, innermost first.
    let addresses: [UInt]

    private let directory: URL
    private let input: Pipe

    /// Writes `source` to `fileName` in a new temporary directory, compiles it with `compiler` and `arguments`
    /// (the source path and `-o <executable>` are appended), starts it and reads the addresses it prints (one
    /// line of hexadecimal numbers separated by spaces).
    init(fileName: String, source: String, compiler: String, arguments: [String]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "leakgraph-inline-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        sourcePath = directory.appendingPathComponent(fileName).path
        self.source = source
        try source.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let executable = directory.appendingPathComponent("program").path

        let compile = Process()
        compile.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compile.arguments = [compiler] + arguments + [sourcePath, "-o", executable]
        compile.currentDirectoryURL = directory
        try compile.run()
        compile.waitUntilExit()
        try #require(compile.terminationStatus == 0, "\(compiler) failed to compile \(fileName)")

        let output = Pipe()
        input = Pipe()
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.standardOutput = output
        process.standardInput = input
        try process.run()

        var text = Data()
        while !text.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text.append(chunk)
        }
        let line = String(decoding: text, as: UTF8.self).split(separator: "\n").first ?? ""
        addresses = line.split(separator: " ").compactMap { UInt($0, radix: 16) }
    }

    /// The 1-based number of the first source line containing `marker`.
    func line(containing marker: String) throws -> Int {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let index = try #require(lines.firstIndex { $0.contains(marker) }, "no line contains \(marker)")
        return index + 1
    }

    deinit {
        // Closing standard input ends the child's wait.
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
