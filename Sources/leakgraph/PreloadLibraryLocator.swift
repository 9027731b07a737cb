import CLeakGraphContract

#if canImport(Glibc)
import Glibc
#endif

/// Finds `libLeakGraphPreload.so`, the library `leakgraph run` preloads into the checked program.
enum PreloadLibraryLocator {
    /// The file name SwiftPM gives the `LeakGraphPreload` dynamic-library product.
    static let fileName = "libLeakGraphPreload.so"
    /// The environment variable that overrides where the library is looked for.
    static let overrideVariable = LG_ENV_PRELOAD_LIBRARY

    /// The absolute path of the preload library: `$LEAKGRAPH_PRELOAD_LIBRARY` when set, else
    /// `libLeakGraphPreload.so` beside the running `leakgraph` executable (found through `/proc/self/exe`).
    /// - Throws: ``ToolError`` when the library is not there.
    static func locate(environment: [String: String]) throws(ToolError) -> String {
        if let override = environment[overrideVariable], !override.isEmpty {
            guard let path = absolutePath(override), access(path, R_OK) == 0 else {
                throw ToolError("the preload library \(override) (from \(overrideVariable)) does not exist or cannot be read")
            }
            return path
        }
        guard let executable = absolutePath("/proc/self/exe") else {
            throw ToolError("cannot find the leakgraph executable through /proc/self/exe")
        }
        let directory = executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)]
        let candidate = directory + "/" + fileName
        guard access(candidate, R_OK) == 0 else {
            throw ToolError(
                "cannot find \(fileName) beside the leakgraph executable in \(directory); run `swift build` to build it"
            )
        }
        return candidate
    }

    /// The canonical absolute path of an existing file, or `nil`.
    static func absolutePath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
