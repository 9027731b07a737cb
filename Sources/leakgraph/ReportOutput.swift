import Foundation
import LeakGraphReport

/// Writes the finished report where the user asked for it.
enum ReportOutput {
    /// Fails early, before the program runs, when a file the user named cannot be created: its directory
    /// is missing or is not a directory.
    static func checkWritable(_ path: String, what: String) throws(ToolError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ToolError("cannot write the \(what) to \(path): the directory \(directory) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ToolError("cannot write the \(what) to \(path): it is a directory")
        }
    }

    /// Writes `data` to `path`, replacing the file atomically.
    static func write(_ data: Data, to path: String, what: String) throws(ToolError) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ToolError("cannot write the \(what) to \(path): \(error.localizedDescription)")
        }
    }

    /// One line for standard error when the full text summary went to a file.
    static func shortSummary(_ synopsis: ReportSynopsis, textPath: String) -> String {
        let summary = synopsis.summary
        guard summary.leakedObjects > 0 else {
            return "leakgraph: no leaks found; summary written to \(textPath)"
        }
        let objects = summary.leakedObjects == 1 ? "object" : "objects"
        let cycles = summary.rootCycles == 1 ? "root cycle" : "root cycles"
        let library = summary.leakedObjects - synopsis.leakedObjectsOutsideLibraries
        let libraryNote = library > 0 ? " (\(library) of them in known library leaks or accepted by the baseline)" : ""
        return "leakgraph: \(summary.leakedObjects) leaked \(objects) (\(summary.leakedBytes) bytes) in "
            + "\(summary.rootCycles) \(cycles)\(libraryNote); summary written to \(textPath)"
    }
}
