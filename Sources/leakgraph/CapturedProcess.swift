import Foundation

/// A helper process whose output `leakgraph` reads instead of showing it (`swift build`, a test
/// bundle's `--list-tests`).
struct CapturedProcess {
    /// How it ended.
    var termination: Termination
    /// Standard output, and standard error interleaved with it when it was captured too.
    var output: String

    /// Whether it exited with status 0.
    var succeeded: Bool { termination == .exited(0) }

    /// Runs `executable` with `arguments` (not including its name) and `environment`, standard input
    /// empty, and waits for it. Standard error is captured with standard output when
    /// `capturesStandardError`, else discarded.
    /// - Throws: ``ToolError`` when it cannot be started.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], capturesStandardError: Bool = true
    ) throws(ToolError) -> CapturedProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = capturesStandardError ? pipe : FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ToolError("cannot start \(executable): \(error.localizedDescription)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationStatus
        let termination: Termination =
            process.terminationReason == .uncaughtSignal ? .signaled(status) : .exited(status)
        return CapturedProcess(termination: termination, output: String(decoding: data, as: UTF8.self))
    }
}
