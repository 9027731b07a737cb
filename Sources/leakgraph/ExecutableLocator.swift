#if canImport(Glibc)
    import Glibc
#endif

/// Finds the program `leakgraph run` is asked to check, as a shell would.
enum ExecutableLocator {
    /// The search path used when `PATH` is unset (glibc's `execvp` default, minus the current directory).
    static let defaultSearchPath = "/usr/local/bin:/usr/bin:/bin"

    /// Resolves `name` to the path to spawn.
    ///
    /// A name containing `/` is used as it is; any other name is looked up in `searchPath` (the `PATH`
    /// variable), taking the first regular file there that this user may execute.
    /// - Throws: ``ToolError`` when there is no such file, it is a directory or it is not executable.
    static func resolve(_ name: String, searchPath: String?) throws(ToolError) -> String {
        guard !name.isEmpty else {
            throw ToolError("the executable's name is empty")
        }
        if name.contains("/") {
            try checkExecutable(name)
            return name
        }
        let directories = (searchPath ?? defaultSearchPath).split(separator: ":", omittingEmptySubsequences: false)
        var foundButNotExecutable: String?
        for directory in directories {
            let base = directory.isEmpty ? "." : String(directory)
            let candidate = base.hasSuffix("/") ? base + name : base + "/" + name
            guard isRegularFile(candidate) else { continue }
            if access(candidate, X_OK) == 0 {
                return candidate
            }
            foundButNotExecutable = foundButNotExecutable ?? candidate
        }
        if let candidate = foundButNotExecutable {
            throw ToolError("\(candidate) is not executable")
        }
        throw ToolError("no executable named \(name) in PATH")
    }

    /// Checks that `path` names an executable regular file.
    private static func checkExecutable(_ path: String) throws(ToolError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw ToolError("cannot run \(path): \(reason)")
        }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw ToolError("cannot run \(path): it is a directory")
        }
        guard access(path, X_OK) == 0 else {
            throw ToolError("cannot run \(path): it is not executable")
        }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
