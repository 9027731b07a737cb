import CLeakGraphContract
import Foundation
import LeakGraphReport

/// The fresh temporary directory where the preloaded library leaves its results for `leakgraph run`.
struct ReportWorkspace {
    /// The directory, created by ``create()`` and owned by this run.
    let directory: String

    /// Where the preload library writes the JSON report (`LG_ENV_OUTPUT`).
    var reportPath: String { directory + "/report.json" }
    /// Where the preload library writes its one-sentence reason when it cannot check the program
    /// (the hook refused, `LG_ENV_FRAMES` was invalid, the report could not be written).
    var refusalPath: String { reportPath + LG_REPORT_ERROR_SUFFIX }
    /// Where the preload library writes the text summary without its header when asked
    /// (``ChildRendering``).
    var textPath: String { reportPath + LG_REPORT_TEXT_SUFFIX }
    /// Where the preload library writes the report's ``ReportSynopsis``, last, when asked to render
    /// anything.
    var synopsisPath: String { reportPath + LG_REPORT_SYNOPSIS_SUFFIX }

    /// What the preload library left behind.
    enum Outcome: Equatable {
        /// The check finished: the JSON report is at ``reportPath`` (read with ``reportData()``), or
        /// the synopsis at ``synopsisPath`` (``renderedFiles(for:asked:)``).
        case report
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

    /// Tells what the preload library wrote; a refusal wins over a report.
    func outcome() -> Outcome {
        let files = FileManager.default
        if files.fileExists(atPath: refusalPath) {
            let text = (try? String(contentsOfFile: refusalPath, encoding: .utf8)) ?? ""
            let sentence = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let trimmed = sentence.trimmingCharacters(in: .whitespaces)
            return .hookRefused(trimmed.isEmpty ? "the leak check could not be set up (no reason given)" : trimmed)
        }
        return files.fileExists(atPath: reportPath) || files.fileExists(atPath: synopsisPath) ? .report : .nothing
    }

    /// The JSON report's bytes.
    /// - Throws: ``ToolError`` when the file cannot be read.
    func reportData() throws(ToolError) -> Data {
        try read(reportPath)
    }

    /// The bytes of the text summary without its header.
    /// - Throws: ``ToolError`` when the file cannot be read.
    func textBodyData() throws(ToolError) -> Data {
        try read(textPath)
    }

    /// The files the preload library rendered, when they are what `asked` needs for `program`: a
    /// synopsis of this version listing every rendering asked, the text file when the text was
    /// asked, and — for the JSON report, which names the program — a synopsis naming exactly
    /// `program` (path, arguments and exit status as `leakgraph run` saw them). `nil` otherwise
    /// (nothing asked, an older library, the program changed its arguments or an exit handler after
    /// the check its status): then the report must be decoded.
    func renderedFiles(for program: LeakReport.Program, asked: ChildRendering) -> RenderedFiles? {
        guard !asked.isEmpty, let data = FileManager.default.contents(atPath: synopsisPath),
            var synopsis = ReportSynopsis.decode(from: data),
            Set(asked.words).isSubset(of: synopsis.rendered),
            !asked.text || FileManager.default.fileExists(atPath: textPath),
            !asked.prettyJSON || synopsis.program == program
        else {
            return nil
        }
        synopsis.program = program
        return RenderedFiles(synopsis: synopsis, workspace: self)
    }

    /// Reads the file at `path` in the workspace.
    private func read(_ path: String) throws(ToolError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ToolError("cannot read the leak report \(path): \(error.localizedDescription)")
        }
    }

    /// The path to put in `LD_PRELOAD` for `library`: the path itself, or — when it holds a space or a
    /// colon, which separate `LD_PRELOAD` entries and cannot be escaped — a symlink to it in the
    /// workspace (`~/My Tools/lib/leakgraph/…` installs work).
    /// - Throws: ``ToolError`` when neither path can be preloaded.
    func preloadablePath(for library: String) throws(ToolError) -> String {
        func preloadable(_ path: String) -> Bool { !path.contains(" ") && !path.contains(":") }
        guard !preloadable(library) else { return library }
        let link = directory + "/" + PreloadLibraryLocator.fileName
        guard preloadable(link) else {
            throw ToolError(
                "cannot preload \(library): LD_PRELOAD cannot hold a path with a space or a colon, and the temporary "
                    + "folder \(directory) has one too; set TMPDIR to a folder without")
        }
        guard symlink(library, link) == 0 || errno == EEXIST else {
            throw ToolError("cannot link \(link) to \(library): \(String(cString: strerror(errno)))")
        }
        return link
    }

    /// Deletes the directory and what the preload library wrote into it.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
