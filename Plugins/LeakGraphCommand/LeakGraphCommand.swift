import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory leakgraph [LEAKGRAPH TEST OPTIONS…]`: runs
/// `leakgraph test` on the package the command is run in.
///
/// SwiftPM holds a lock on the package's `.build` while a plugin runs, so the nested `swift build` of
/// `leakgraph test` uses its own build directory, `.build/leakgraph` (hence the permission to write into
/// the package directory). The arguments are passed to `leakgraph test` after `--package-path` and
/// `--scratch-path` (a `--scratch-path` of the user's wins); the command ends with `leakgraph`'s exit status.
@main
struct LeakGraphCommand: CommandPlugin {
    /// Builds `libLeakGraphPreload.so`, the checker library it loads and `libLeakGraphTestObserver.so` beside
    /// the `leakgraph` tool, then runs `leakgraph test`.
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "leakgraph").url
        let checker = try packageManager.build(
            .product("LeakGraphPreloadChecker"), parameters: .init(configuration: .debug, echoLogs: false))
        guard checker.succeeded else {
            Diagnostics.error("cannot build libLeakGraphPreloadChecker.so:\n\(checker.logText)")
            throw ExitCode(2)
        }
        let preload = try packageManager.build(
            .product("LeakGraphPreload"), parameters: .init(configuration: .debug, echoLogs: false))
        guard preload.succeeded, let library = preload.builtArtifacts.first(where: { $0.kind == .dynamicLibrary })
        else {
            Diagnostics.error("cannot build libLeakGraphPreload.so:\n\(preload.logText)")
            throw ExitCode(2)
        }
        // The test observer, beside it, names the test that made each leak; without it no test is named.
        let observer = try packageManager.build(
            .product("LeakGraphTestObserver"), parameters: .init(configuration: .debug, echoLogs: false))
        if !observer.succeeded {
            Diagnostics.warning(
                "cannot build libLeakGraphTestObserver.so; leaks will not name their tests:\n\(observer.logText)")
        }
        let package = context.package.directoryURL
        let scratch = package.appending(path: ".build").appending(path: "leakgraph")
        let process = Process()
        process.executableURL = tool
        process.arguments = ["test", "--package-path", package.path, "--scratch-path", scratch.path] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LEAKGRAPH_PRELOAD_LIBRARY"] = library.url.path
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw ExitCode(process.terminationStatus)
        }
    }
}

/// The exit status `leakgraph test` ended with (23 leaks, 2 tool error, the tests' own status when they failed).
struct ExitCode: Error, CustomStringConvertible {
    /// The status.
    let status: Int32

    init(_ status: Int32) {
        self.status = status
    }

    var description: String {
        "leakgraph test exited with status \(status) (23: the package's code leaks; 2: usage or tool error; otherwise the tests failed)"
    }
}
