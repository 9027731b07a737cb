import Foundation

/// How a finished child process ended and what it printed.
struct ProcessResult: Sendable {
    /// The exit status, or the signal number when `signaled`.
    var status: Int32
    /// Whether a signal ended the process.
    var signaled: Bool
    /// Everything it wrote to standard output.
    var standardOutput: String
    /// Everything it wrote to standard error.
    var standardError: String

    /// The exit status and the output, for failure messages.
    var summary: String {
        "\(signaled ? "signal" : "status") \(status)\n--- stdout ---\n\(standardOutput.suffix(4000))\n"
            + "--- stderr ---\n\(standardError.suffix(4000))"
    }
}

/// Limits how many child processes the tests run at once (the machine has two cores; compiles and
/// million-object runs must not all start together).
actor ProcessSlots {
    static let shared = ProcessSlots(limit: max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = limit
    }

    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Runs `executable` to completion with output captured in files (no pipe can fill up), in a slot.
///
/// - Parameters:
///   - environment: The complete environment of the child.
///   - standardInput: Text fed to its standard input (empty input when `nil`).
func runProcess(
    _ executable: URL, arguments: [String], environment: [String: String], standardInput: String? = nil,
    currentDirectory: URL? = nil
) async throws -> ProcessResult {
    await ProcessSlots.shared.acquire()
    defer { Task { await ProcessSlots.shared.release() } }

    let folder = try Scratch.directory("process")
    let outputURL = folder.appendingPathComponent("stdout")
    let errorURL = folder.appendingPathComponent("stderr")
    let inputURL = folder.appendingPathComponent("stdin")
    try Data((standardInput ?? "").utf8).write(to: inputURL)
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL)
    let error = try FileHandle(forWritingTo: errorURL)
    let input = try FileHandle(forReadingFrom: inputURL)

    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.standardOutput = output
    process.standardError = error
    process.standardInput = input
    if let currentDirectory {
        process.currentDirectoryURL = currentDirectory
    }
    let finished = AsyncStream<Void>.makeStream()
    process.terminationHandler = { _ in finished.continuation.finish() }
    try withDefaultSignalMask { try process.run() }
    for await _ in finished.stream {}
    process.waitUntilExit()
    try? output.close()
    try? error.close()
    try? input.close()

    let result = ProcessResult(
        status: process.terminationStatus,
        signaled: process.terminationReason == .uncaughtSignal,
        standardOutput: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
        standardError: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
    )
    try? FileManager.default.removeItem(at: folder)
    return result
}

/// The test process's environment without the variables that would change what the tests check.
func cleanEnvironment(adding extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    for name in ["LEAKGRAPH_PRELOAD_LIBRARY", "LEAKGRAPH_OUTPUT", "LEAKGRAPH_FRAMES", "LEAKGRAPH_ORIGINAL_LD_PRELOAD",
        "LEAKGRAPH_PROGRAM", "LEAKGRAPH_RENDER", "LEAKGRAPH_SYMBOLIZER",
        "LD_PRELOAD", "FIXTURE_CHECK"]
    {
        environment[name] = nil
    }
    environment.merge(extra) { _, new in new }
    return environment
}

/// Runs `body` — which starts a child process with Foundation's `Process` — with no signal blocked on
/// the calling thread, so that the child starts with none blocked either and takes SIGTERM, SIGINT and
/// the rest as any program started from a shell does. The tests run on the concurrency pool's threads,
/// which block most signals (SIGTERM among them); `Process` has no setting for the child's mask, and
/// posix_spawn hands the parent thread's mask on.
func withDefaultSignalMask<Result>(_ body: () throws -> Result) rethrows -> Result {
    var none = sigset_t()
    sigemptyset(&none)
    var original = sigset_t()
    pthread_sigmask(SIG_SETMASK, &none, &original)
    defer { pthread_sigmask(SIG_SETMASK, &original, nil) }
    return try body()
}
