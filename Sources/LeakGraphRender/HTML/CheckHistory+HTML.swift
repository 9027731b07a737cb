import FoundationEssentials
import LeakGraphReport

/// The HTML page `leakgraph report FOLDER --html PATH` writes for a periodic run's `checks.jsonl`:
/// self-contained (no script, no file beside it), a small SVG line chart per series — live objects,
/// leaked objects, pause — and one per leak, drawn over the time of the checks.
public enum CheckHistoryHTML {
    /// The page for `history` (of `folder`).
    public static func render(_ history: CheckHistory, folder: String) -> String {
        let records = history.records
        let times = records.map { history.elapsed($0) }
        let ran = records.map { $0.skipped == nil }
        func series(_ values: [Int]) -> [Int?] { zip(values, ran).map { $1 ? $0 : nil } }
        var body = ""
        body += "<h1>Checks of \(HTMLText.escaped(folder))</h1>\n"
        body +=
            "<p>\(HTMLText.escaped(CheckHistoryText.render(history, folder: folder).split(separator: "\n").first.map(String.init) ?? ""))</p>\n"
        let charts: [(String, [Int?], String)] = [
            ("Live objects", series(records.map(\.liveObjects)), "objects"),
            ("Leaked objects", series(records.map(\.leakedObjects)), "objects"),
            (
                "Pause (longest freeze of each check)", series(records.map { Int(($0.pauseSeconds * 1000).rounded()) }),
                "ms"
            ),
            ("Peak memory", series(records.map { $0.peakResidentBytes / 1_000_000 }), "MB"),
        ]
        body += "<section class=\"charts\">\n"
        for (title, values, unit) in charts {
            body += figure(title: title, times: times, values: values, unit: unit)
        }
        body += "</section>\n"
        let leaks = history.leakSeries
        body += "<h2>Leaks (root cycles at each check)</h2>\n"
        if leaks.isEmpty {
            body += "<p>No leak confirmed by any check.</p>\n"
        } else {
            body += "<section class=\"charts\">\n"
            for leak in leaks {
                var title = "\(ReportNaming.shortName(leak.type)) · \(leak.fingerprint)"
                if let rate = history.cyclesPerMinute(leak) {
                    title += " · \(rate >= 0 ? "+" : "")\(CheckHistoryText.decimal(rate)) cycles a minute"
                }
                body += figure(title: title, times: times, values: leak.cycles, unit: "cycles")
            }
            body += "</section>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>LeakGraph checks · \(HTMLText.escaped(folder))</title>
            <style>
            body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
            .charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
            figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: .3em; }
            svg text { font: 11px system-ui, sans-serif; fill: #555; }
            polyline { fill: none; stroke: #c0392b; stroke-width: 2; } .axis { stroke: #bbb; }
            circle { fill: #c0392b; }
            </style></head><body>
            \(body)</body></html>

            """
    }

    /// One chart: `values` (nil: not measured) over `times` (seconds from the first check).
    static func figure(title: String, times: [Double], values: [Int?], unit: String) -> String {
        let (width, height, left, bottom) = (360.0, 120.0, 56.0, 18.0)
        let largest = max(values.compactMap { $0 }.max() ?? 0, 1)
        let span = max(times.last ?? 0, 1e-9)
        func x(_ time: Double) -> Double { left + (width - left - 8) * (times.count > 1 ? time / span : 0.5) }
        func y(_ value: Int) -> Double { 6 + (height - bottom - 6) * (1 - Double(value) / Double(largest)) }
        var points: [String] = []
        var dots = ""
        for (time, value) in zip(times, values) {
            guard let value else { continue }
            let point = "\(rounded(x(time))),\(rounded(y(value)))"
            points.append(point)
            dots +=
                "<circle cx=\"\(rounded(x(time)))\" cy=\"\(rounded(y(value)))\" r=\"2\"><title>"
                + "\(CheckHistoryText.duration(time)): \(ReportNaming.grouped(value)) \(unit)</title></circle>"
        }
        return """
            <figure><figcaption>\(HTMLText.escaped(title))</figcaption>
            <svg width="\(Int(width))" height="\(Int(height))" role="img" aria-label="\(HTMLText.escaped(title))">
            <line class="axis" x1="\(left)" y1="\(height - bottom)" x2="\(width - 8)" y2="\(height - bottom)"/>
            <line class="axis" x1="\(left)" y1="6" x2="\(left)" y2="\(height - bottom)"/>
            <text x="\(left - 4)" y="12" text-anchor="end">\(ReportNaming.grouped(largest))</text>
            <text x="\(left - 4)" y="\(height - bottom)" text-anchor="end">0 \(HTMLText.escaped(unit))</text>
            <text x="\(left)" y="\(height - 4)">0 s</text>
            <text x="\(width - 8)" y="\(height - 4)" text-anchor="end">\(CheckHistoryText.duration(times.last ?? 0))</text>
            <polyline points="\(points.joined(separator: " "))"/>\(dots)
            </svg></figure>

            """
    }

    static func rounded(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
