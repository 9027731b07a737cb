import Foundation

/// The built `leakgraph` executable and `libLeakGraphPreload.so` the end-to-end tests run.
///
/// They are taken from `$LEAKGRAPH_BIN_DIR` when set, else from the directory holding the running test
/// bundle (on Linux `…PackageTests.xctest` sits in the build products directory, beside them).
enum BuildProducts {
    /// A product that is not where it should be.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    /// The products directory.
    static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["LEAKGRAPH_BIN_DIR"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// The `leakgraph` executable.
    static func leakgraph() throws -> URL {
        try product("leakgraph")
    }

    /// `libLeakGraphPreload.so`.
    static func preloadLibrary() throws -> URL {
        try product("libLeakGraphPreload.so")
    }

    private static func product(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(
                description: "\(name) is not in \(directory.path): run `swift build` first (it builds the leakgraph "
                    + "executable and the LeakGraphPreload library), or set LEAKGRAPH_BIN_DIR to the directory holding them"
            )
        }
        return url
    }
}
