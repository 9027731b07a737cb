import CLeakGraphContract
import Foundation

/// The fresh temporary directory where the preloaded library leaves its results for `leakgraph run`.
struct ReportWorkspace {
    /// The directory, created by ``create()`` and owned by this run.
    let directory: String

    /// Where the preload library writes the JSON report (`LG_ENV_OUTPUT`).
    var reportPath: String { directory + "/report.json" }
    /// Where the preload library writes its one-sentence reason when it cannot check the program
    /// (the hook refused, `LG_ENV_FRAMES` was invalid, the report could not be written).
    var refusalPath: String { reportPath + LG_REPORT_ERROR_SUFFIX }

    /// What the preload library left behind.
    enum Outcome: Equatable {
        /// The report JSON.
        case report(Data)
        /// The hook was not installed; the sentence says why.
        case hookRefused(String)
        /// Nothing was written.
        case nothing
    }

    /// Creates a new private directory under `$TMPDIR` (or `/tmp`).
    /// - Throws: ``ToolError`` when it cannot be created.
    static func create(environment: [String: String]) throws(ToolError) -> ReportWorkspace {
        var base = environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        if base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/leakgraph.XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
        guard created else {
            throw ToolError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        let bytes = template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return ReportWorkspace(directory: String(decoding: bytes, as: UTF8.self))
    }

    /// Reads what the preload library wrote; a refusal wins over a report.
    /// - Throws: ``ToolError`` when a file is there but cannot be read.
    func outcome() throws(ToolError) -> Outcome {
        let files = FileManager.default
        if files.fileExists(atPath: refusalPath) {
            let text = (try? String(contentsOfFile: refusalPath, encoding: .utf8)) ?? ""
            let sentence = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let trimmed = sentence.trimmingCharacters(in: .whitespaces)
            return .hookRefused(trimmed.isEmpty ? "the leak check could not be set up (no reason given)" : trimmed)
        }
        guard files.fileExists(atPath: reportPath) else {
            return .nothing
        }
        do {
            return .report(try Data(contentsOf: URL(fileURLWithPath: reportPath)))
        } catch {
            throw ToolError("cannot read the leak report \(reportPath): \(error.localizedDescription)")
        }
    }

    /// Deletes the directory and what the preload library wrote into it.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
