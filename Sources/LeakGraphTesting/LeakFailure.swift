import CLeakGraphContract
import Foundation
import LeakGraph
#if HTMLReports
    import LeakGraphGraphviz
#endif

/// The test failure of a scoped leak check: the message a developer reads in the test log, and
/// the report files it points to.
struct LeakFailure {
    /// The scope's report (library leaks included).
    var report: LeakReport
    /// Where the failure is reported.
    var location: TestLocation
    /// Root cycles drawn per failure message, and lines per cycle.
    static let cycleLimit = 5
    static let pathLimit = 12

    /// What the check was, for the report's header: `assertNoLeaks in RoomTests.testJoin()
    /// (RoomTests.swift:12)`; asked only when the check fails, in the test's task.
    var check: () -> String

    /// The root cycles that fail the test: those the report's verdict counts (``LeakReport/newCycles``:
    /// neither known leaks of libraries nor accepted by a baseline).
    var failingCycles: [Int] {
        report.cycles.indices.filter { !report.cycles[$0].isExcused }
    }

    /// Opens the scope of one check, or records why it cannot (recording refused) as a failure at
    /// `location` and returns `nil`: the test then runs unchecked.
    static func openScope(_ options: [LeakCheckOptions], what: String, at location: TestLocation) -> LeakCheckScope? {
        TestFailure.opening(what, cannot: "check for leaks", at: location) {
            try LeakCheckScope.open(LeakCheckOptions(combining: options))
        }
    }

    /// Records one failure when the report's verdict is that the code leaks; writes the report files first.
    func recordIfLeaking() {
        guard report.verdict == .leaksFound else { return }
        let context = RenderContext(command: check(), verdict: ReportSynopsis(report).leakSummary)
        let files = ReportFiles.write(
            report, named: Self.fileStem(for: location), near: location.filePath, context: context)
        TestFailure.record(message(files: files), at: location)
    }

    /// `what in Suite.test() (File.swift:12)`: the check, the test it runs in — Swift Testing's current
    /// test, else the enclosing function (`function`, from `#function`) — and where it is written.
    static func describe(_ what: String, function: String?, at location: TestLocation) -> String {
        let test: String?
        if let current = TestFailure.currentTestName {
            test = current
        } else {
            test = function
        }
        let file = (location.filePath as NSString).lastPathComponent
        return what + (test.map { " in \($0)" } ?? "") + " (\(file):\(location.line))"
    }

    /// The failure message: a header, each failing root cycle's section of the text report (leak
    /// trace, suspect and fix, fingerprint, members with creation sites, held objects), why no store site is
    /// named when a re-run with histories did not give one, and where the reports are.
    func message(files: ReportFiles) -> String {
        let failing = failingCycles
        let objects = failing.reduce(0) { $0 + report.cycles[$1].members.count + report.cycles[$1].holds.count }
        let bytes = failing.reduce(0) { total, cycle in
            (report.cycles[cycle].members + report.cycles[cycle].holds).reduce(total) { $0 + report.leaks[$1].size }
        }
        var lines = [
            "\(ReportNaming.count(objects, "object")) leaked (\(ReportNaming.count(bytes, "byte")), "
                + "\(ReportNaming.count(failing.count, "root cycle"))), allocated in this check's scope:"
        ]
        let sections = TextReport.cycleSections(of: report, pathLimit: Self.pathLimit)
        for cycle in failing.prefix(Self.cycleLimit) {
            lines.append("")
            lines.append(sections[cycle])
        }
        if failing.count > Self.cycleLimit {
            lines.append("")
            lines.append(
                "… and \(ReportNaming.count(failing.count - Self.cycleLimit, "more root cycle")) (see the report)")
        }
        let library = report.cycles.count - failing.count
        if library > 0 {
            lines.append(
                "(also \(ReportNaming.count(library, "known library leak")), reported but not failing the test)")
        }
        for note in report.historyNotes {
            lines.append("Store sites: \(note)")
        }
        lines.append("")
        lines.append(files.description)
        return lines.joined(separator: "\n")
    }

    /// `ChatTests.42`: the file name without its extension and the line.
    static func fileStem(for location: TestLocation) -> String {
        let file = (location.filePath as NSString).lastPathComponent
        let stem = (file as NSString).deletingPathExtension
        return "\(stem.isEmpty ? "leak" : stem).\(location.line)"
    }
}

/// The report files of one failure: HTML (with the graphs), SVG overview, JSON.
struct ReportFiles: CustomStringConvertible {
    var html: String?
    var svg: String?
    var json: String?
    var problems: [String] = []

    /// `Report: /…/ChatTests.42.html (SVG: …, JSON: …)`, and any file that could not be written.
    var description: String {
        var parts: [String] = []
        if let html { parts.append("Report: \(html)") }
        var others: [String] = []
        if let svg { others.append("SVG: \(svg)") }
        if let json { others.append("JSON: \(json)") }
        if !others.isEmpty {
            parts.append(parts.isEmpty ? others.joined(separator: ", ") : "(\(others.joined(separator: ", ")))")
        }
        var text = parts.joined(separator: " ")
        for problem in problems {
            text += (text.isEmpty ? "" : "\n") + "Report not written: \(problem)"
        }
        return text
    }

    /// The folder reports go to: `LEAKGRAPH_REPORT_DIR`, else `.build/leakgraph-reports` of the
    /// package whose sources contain `sourcePath`, else `leakgraph-reports` in the temporary folder.
    static func directory(near sourcePath: String) -> URL {
        if let configured = ProcessInfo.processInfo.environment[LG_ENV_REPORT_DIR], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        var folder = URL(fileURLWithPath: sourcePath).deletingLastPathComponent()
        while folder.path != "/" && !folder.path.isEmpty {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder.appendingPathComponent(".build/leakgraph-reports", isDirectory: true)
            }
            folder.deleteLastPathComponent()
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("leakgraph-reports", isDirectory: true)
    }

    /// Writes `report` as `<stem>.html`, `<stem>.svg` and `<stem>.json` into ``directory(near:)``.
    /// A file that cannot be written is named in ``problems``; the failure is reported anyway.
    static func write(_ report: LeakReport, named stem: String, near sourcePath: String, context: RenderContext)
        -> ReportFiles
    {
        var files = ReportFiles()
        let folder = directory(near: sourcePath)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            files.problems.append("\(folder.path): \(error.localizedDescription)")
            return files
        }
        func save(_ content: Data, _ name: String) -> String? {
            let url = folder.appendingPathComponent(name)
            do {
                try content.write(to: url, options: .atomic)
                return url.path
            } catch {
                files.problems.append("\(url.path): \(error.localizedDescription)")
                return nil
            }
        }
        if let json = try? report.jsonData(prettyPrinted: true) {
            files.json = save(json, stem + ".json")
        }
        #if HTMLReports
            do {
                let rendered = try SVGRenderer.render(DOTRenderer.graphs(for: report))
                if let overview = rendered.first {
                    files.svg = save(Data(overview.svg.utf8), stem + ".svg")
                }
                files.html = save(
                    Data(HTMLReport.render(report, graphs: rendered, context: context).utf8), stem + ".html")
            } catch {
                files.problems.append("the graphs could not be drawn: \(error.message)")
            }
        #endif
        return files
    }
}
