import CLeakGraphContract

#if canImport(Glibc)
    import Glibc
#endif

/// Finds `libLeakGraphPreload.so`, the library `leakgraph run` preloads into the checked program.
enum PreloadLibraryLocator {
    /// The file name SwiftPM gives the `LeakGraphPreload` dynamic-library product.
    static let fileName = "libLeakGraphPreload.so"
    /// The library the preload library loads from its own folder when a check runs.
    static let checkerFileName = LG_CHECKER_LIBRARY_NAME
    /// The environment variable that overrides where the library is looked for.
    static let overrideVariable = LG_ENV_PRELOAD_LIBRARY

    /// Where the library is looked for beside the `leakgraph` executable in `directory`, in order: the
    /// same folder (a `swift build` products folder), then `../lib/leakgraph/` (what `scripts/install`
    /// lays out: `PREFIX/bin/leakgraph`, `PREFIX/lib/leakgraph/libLeakGraphPreload.so`).
    static func candidates(besideExecutableIn directory: String) -> [String] {
        let parent = directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)]
        return [directory + "/" + fileName, parent + "/lib/leakgraph/" + fileName]
    }

    /// The absolute path of the preload library: `$LEAKGRAPH_PRELOAD_LIBRARY` when set (an explicit
    /// choice wins), else the first of ``candidates(besideExecutableIn:)`` for the running `leakgraph`
    /// executable (found through `/proc/self/exe`, so a symlink to it in another `bin/` works too),
    /// with the checker library beside it.
    /// - Throws: ``ToolError`` when the library is not there, or the checker library not beside it.
    static func locate(environment: [String: String]) throws(ToolError) -> String {
        if let override = environment[overrideVariable], !override.isEmpty {
            guard let path = absolutePath(override), access(path, R_OK) == 0 else {
                throw ToolError(
                    "the preload library \(override) (from \(overrideVariable)) does not exist or cannot be read")
            }
            return path
        }
        guard let executable = absolutePath("/proc/self/exe") else {
            throw ToolError("cannot find the leakgraph executable through /proc/self/exe")
        }
        let directory = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
        let candidates = candidates(besideExecutableIn: directory)
        guard let found = candidates.first(where: { access($0, R_OK) == 0 }) else {
            throw ToolError(
                "cannot find \(fileName) beside the leakgraph executable (looked in \(candidates.joined(separator: " and "))); "
                    + "install LeakGraph with scripts/install, run `swift build` to build it, or set \(overrideVariable)"
            )
        }
        let library = absolutePath(found) ?? found
        let checker = String(library[..<(library.lastIndex(of: "/") ?? library.startIndex)]) + "/" + checkerFileName
        guard access(checker, R_OK) == 0 else {
            throw ToolError(
                "cannot find \(checkerFileName) beside \(library), which loads it to check the program; "
                    + "install LeakGraph with scripts/install, or run `swift build` to build it")
        }
        return library
    }

    /// The test observer library beside the preload library at `preloadLibrary` (an absolute path), when
    /// it is there: SwiftPM builds both products into one folder and `scripts/install` installs both.
    static func testObserver(besidePreloadLibrary preloadLibrary: String) -> String? {
        let directory = preloadLibrary[..<(preloadLibrary.lastIndex(of: "/") ?? preloadLibrary.startIndex)]
        let path = directory + "/" + LG_TEST_OBSERVER_LIBRARY
        return access(path, R_OK) == 0 ? path : nil
    }

    /// The canonical absolute path of an existing file, or `nil`.
    static func absolutePath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
