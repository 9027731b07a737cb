#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials

/// `checks.jsonl` in a monitor's report folder: one ``LeakMonitorCheckRecord`` per line, appended
/// after each check. Past ``limit`` bytes the file is renamed `checks.jsonl.1` (replacing the one
/// before) and a new one started, so the folder never holds more than twice the limit of records.
struct ChecksFile {
    /// The folder (created when missing).
    let folder: String
    /// The size past which the file is rotated.
    var limit = 16 << 20

    /// The file's name.
    static let name = "checks.jsonl"

    /// The file's path.
    var path: String { ReportFolder.join(folder, Self.name) }

    /// Appends `record` as one line, with one `write` on a descriptor opened with `O_APPEND`: a
    /// reader never sees half a line from a check that finished.
    func append(_ record: LeakMonitorCheckRecord) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var status = stat()
        if stat(path, &status) == 0, Int(status.st_size) >= limit {
            _ = rename(path, path + ".1")
        }
        let line = Array((try record.jsonLine() + "\n").utf8)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ChecksFileError(path: path, errorNumber: errno) }
        defer { close(descriptor) }
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else {
            throw ChecksFileError(path: path, errorNumber: written < 0 ? errno : ENOSPC)
        }
    }
}

/// `checks.jsonl` could not be written.
struct ChecksFileError: Error, CustomStringConvertible {
    /// The file.
    let path: String
    /// The `errno` of the failure.
    let errorNumber: Int32

    var description: String { "cannot append to \(path): \(String(cString: strerror(errorNumber)))" }
}
