import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A path the user named for an output (`--json`, `--text`, `--dot`, `--svg`, `--html`), checked
/// before any work starts, and written the way its kind asks:
///
/// - **absent, or a regular file** (also through a symlink to one): written atomically, into a
///   temporary file beside the target that is renamed over it, so a reader never sees half a report
///   and a failed write leaves the old file. A symlink stays a symlink: its target is replaced. When
///   the directory cannot take the temporary file but the file itself is writable, the file is
///   rewritten in place.
/// - **`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`**: written to that open descriptor
///   of `leakgraph` itself (reopening `/dev/stdout` would truncate a file it is redirected to).
/// - **a device, a pipe, a socket, or a dangling symlink**: opened and written through, never replaced
///   (`--json /dev/null` leaves the device node alone).
struct OutputFile {
    /// How the file is written.
    enum Method: Equatable {
        /// A temporary file in `directory` renamed to `target` (the symlink's target when `path` is one).
        case atomic(target: String, directory: String)
        /// An existing regular file rewritten in place (its directory does not take new files).
        case inPlace(String)
        /// An open descriptor of this process.
        case descriptor(Int32)
        /// Opened and written through (devices, pipes, dangling symlinks).
        case through(String)
    }

    /// The path as the user gave it.
    let path: String
    /// What the output is, for messages: `JSON report`, `text summary`, …
    let what: String
    /// How it is written.
    let method: Method
    /// What the path denotes after resolving symlinks, for telling two outputs on one file apart:
    /// the device and inode of an existing file, the descriptor number, or the resolved path of a new file.
    let identity: String

    /// Checks that `path` can be written and decides how.
    /// - Throws: ``ToolError`` naming the output, the path and the reason: a missing or read-only
    ///   directory, a directory, a read-only file or device, a closed descriptor.
    init(_ path: String, what: String) throws(ToolError) {
        self.path = path
        self.what = what
        func failure(_ reason: String) -> ToolError {
            ToolError("cannot write the \(what) to \(path): \(reason)")
        }
        if let descriptor = OutputFile.descriptorNumber(path) {
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0 else { throw failure("file descriptor \(descriptor) is not open") }
            guard flags & O_ACCMODE != O_RDONLY else {
                throw failure("file descriptor \(descriptor) is open for reading only")
            }
            method = .descriptor(descriptor)
            identity = "descriptor \(descriptor)"
            return
        }
        var link = stat()
        guard lstat(path, &link) == 0 else {
            // Absent: a new file in an existing, writable directory.
            let directory = OutputFile.directory(of: path)
            var info = stat()
            guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
                throw failure("the directory \(directory) does not exist")
            }
            if let reason = OutputFile.cannotCreateFiles(in: directory) {
                throw failure("the directory \(directory) is not writable (\(reason))")
            }
            method = .atomic(target: path, directory: directory)
            identity = "new " + (OutputFile.realPath(directory) ?? directory) + "/" + OutputFile.fileName(of: path)
            return
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            // A symlink to nothing: opening it creates its target.
            guard let reason = OutputFile.cannotOpen(path, flags: O_WRONLY | O_CREAT) else {
                method = .through(path)
                identity = "link " + path
                return
            }
            throw failure(reason)
        }
        identity = "inode \(info.st_dev):\(info.st_ino)"
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw failure("it is a directory")
        case S_IFREG:
            let target = OutputFile.realPath(path) ?? path
            let directory = OutputFile.directory(of: target)
            if OutputFile.cannotCreateFiles(in: directory) == nil {
                method = .atomic(target: target, directory: directory)
            } else if let reason = OutputFile.cannotOpen(target, flags: O_WRONLY) {
                throw failure("neither the file nor its directory \(directory) is writable (\(reason))")
            } else {
                method = .inPlace(target)
            }
        case S_IFIFO, S_IFSOCK:
            // Not opened to check: closing a pipe would end the reader waiting at its other end.
            guard access(path, W_OK) == 0 else { throw failure(String(cString: strerror(errno))) }
            method = .through(path)
        default:
            if let reason = OutputFile.cannotOpen(path, flags: O_WRONLY | O_NONBLOCK) {
                throw failure(reason)
            }
            method = .through(path)
        }
    }

    /// Writes `data` as ``method`` says.
    /// - Throws: ``ToolError`` naming the output and the system's reason; an atomic write that fails
    ///   leaves the old file as it was.
    func write(_ data: Data) throws(ToolError) {
        let result: String?
        switch method {
        case .atomic(let target, let directory):
            result = OutputFile.replace(target, in: directory, with: data)
        case .inPlace(let target):
            result = OutputFile.writeThrough(target, flags: O_WRONLY | O_TRUNC, data: data)
        case .through(let target):
            result = OutputFile.writeThrough(target, flags: O_WRONLY | O_CREAT | O_TRUNC, data: data)
        case .descriptor(let descriptor):
            result = OutputFile.writeAll(data, to: descriptor)
        }
        if let result {
            throw ToolError("cannot write the \(what) to \(path): \(result)")
        }
    }

    // MARK: - Paths

    /// The descriptor `path` names: 1 for `/dev/stdout`, 2 for `/dev/stderr`, N for `/dev/fd/N` and
    /// `/proc/self/fd/N`; `nil` for any other path.
    static func descriptorNumber(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// The directory part of `path` (`.` for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// The last component of `path`.
    static func fileName(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    /// The canonical path of an existing file, or `nil`.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: - Probes

    /// `nil` when a file can be created in `directory` (tried for real: permission bits do not stop
    /// root, and read-only mounts and `/proc` refuse anyway), else the system's reason.
    static func cannotCreateFiles(in directory: String) -> String? {
        var template = Array((directory + "/.leakgraph-check-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return nil
    }

    /// `nil` when `path` opens with `flags`, else the system's reason.
    static func cannotOpen(_ path: String, flags: Int32) -> String? {
        let descriptor = open(path, flags | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        return nil
    }

    // MARK: - Writing

    /// Writes `data` to a new temporary file in `directory` and renames it to `target`; the new file
    /// keeps the permissions of the file it replaces (new files get 0666 less the umask). `nil` on
    /// success, else the reason.
    static func replace(_ target: String, in directory: String, with data: Data) -> String? {
        var template = Array((directory + "/." + fileName(of: target) + ".leakgraph-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var mode: mode_t
        var existing = stat()
        if stat(target, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        var failure = writeAll(data, to: descriptor)
        if failure == nil, fchmod(descriptor, mode) != 0 || fsync(descriptor) != 0 {
            failure = String(cString: strerror(errno))
        }
        if close(descriptor) != 0, failure == nil {
            failure = String(cString: strerror(errno))
        }
        if failure == nil, rename(temporary, target) != 0 {
            failure = String(cString: strerror(errno))
        }
        if failure != nil {
            unlink(temporary)
        }
        return failure
    }

    /// Opens `path` with `flags` and writes `data` through it. `nil` on success, else the reason.
    static func writeThrough(_ path: String, flags: Int32, data: Data) -> String? {
        let descriptor = open(path, flags | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        let failure = writeAll(data, to: descriptor)
        let closed = close(descriptor) == 0 ? nil : String(cString: strerror(errno))
        return failure ?? closed
    }

    /// Writes every byte of `data` to `descriptor`, retrying short writes and `EINTR`. `nil` on
    /// success, else the reason (`No space left on device` for `/dev/full`).
    static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { buffer -> String? in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }
}
