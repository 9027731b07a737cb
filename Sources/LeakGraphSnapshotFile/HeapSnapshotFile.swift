#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraphModel
import LeakGraphReport

/// Reads and writes heap snapshots: SQLite files that any SQLite tool opens (``SnapshotSchema``;
/// docs/snapshots.md), and leak reports, which open as snapshots of their leaked objects.
///
/// ```swift
/// try HeapSnapshotFile.write(LeakChecker.snapshot(), to: "app.lgsnap")
/// let snapshot = try HeapSnapshotFile.read(from: "app.lgsnap")
/// ```
public enum HeapSnapshotFile {
    /// The file name extension `leakgraph` gives snapshots.
    public static let pathExtension = "lgsnap"

    /// Writes `snapshot` to `path` as a SQLite database: first under `path.partial`, then renamed into
    /// place, so `path` is either the whole snapshot or what it was before (a failure removes the
    /// partial file and leaves `path` alone).
    ///
    /// `progress`, when given, is told every 65,536 rows how many of the objects and references are
    /// written (`done` of `total`).
    ///
    /// - Throws: ``SnapshotFileError`` (``SnapshotFileError/Code/cannotWrite``).
    /// - Complexity: O(*n* + *r*); about 0.65 s of CPU and 40 bytes on disk per object for a million
    ///   objects with two references each (docs/performance.md).
    public static func write(
        _ snapshot: HeapSnapshot, to path: String, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(SnapshotFileError) {
        let partial = path + ".partial"
        unlink(partial)
        do {
            try SnapshotWriter.write(snapshot, to: partial, progress: progress)
        } catch {
            unlink(partial)
            throw SnapshotFileError(code: .cannotWrite, message: "cannot write the snapshot \(path): \(error)")
        }
        guard rename(partial, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            throw SnapshotFileError(code: .cannotWrite, message: "cannot write the snapshot \(path): \(reason)")
        }
    }

    /// Reads the snapshot at `path`: a LeakGraph snapshot, or a leak report (JSON), which opens as a
    /// snapshot of its leaked objects (``HeapSnapshot/init(report:)``).
    ///
    /// `progress`, when given, is told every 65,536 rows about how many of a snapshot's objects are
    /// read (`done` of `total`; the second half is read beside the first, on a second thread).
    ///
    /// - Throws: ``SnapshotFileError``: a missing or unreadable file, one that is neither, one a newer
    ///   or an older LeakGraph wrote (another format version), a truncated or damaged one.
    public static func read(
        from path: String, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(SnapshotFileError) -> HeapSnapshot {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason =
                errno == ENOENT
                ? "no such file" : errno == EACCES ? "permission denied" : String(cString: strerror(errno))
            throw SnapshotFileError(code: .unreadable, message: "cannot read \(path): \(reason)")
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard count >= 0 else {
            throw SnapshotFileError(
                code: .unreadable, message: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let head = Data(bytes.prefix(count))
        if head.starts(with: Data("SQLite format 3\0".utf8)) {
            return try SnapshotReader.read(from: path, progress: progress)
        }
        if let first = head.first(where: { ![0x20, 0x0a, 0x0d, 0x09].contains($0) }), first == UInt8(ascii: "{") {
            return try readReport(from: path)
        }
        if head.isEmpty {
            throw SnapshotFileError(code: .damaged, message: "cannot read \(path): the file is empty")
        }
        throw SnapshotFileError(
            code: .notASnapshot, message: "\(path) is neither a LeakGraph snapshot nor a leak report")
    }

    private static func readReport(from path: String) throws(SnapshotFileError) -> HeapSnapshot {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SnapshotFileError(code: .unreadable, message: "cannot read \(path): \(error)")
        }
        do throws(ReportDecodingError) {
            return HeapSnapshot(report: try LeakReport.decode(from: data))
        } catch {
            let code: SnapshotFileError.Code =
                switch error.code {
                case .unsupportedSchemaVersion: .newerFormat
                case .notALeakReport: .notASnapshot
                default: .damaged
                }
            throw SnapshotFileError(code: code, message: "cannot read the leak report \(path): \(error.message)")
        }
    }
}
