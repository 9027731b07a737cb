import Foundation
import LeakGraphGraphviz
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport

extension SnapshotSite {
    /// HTML-escaped text (LeakGraph's one HTML escaping).
    func escape(_ text: String) -> String {
        HTMLText.escaped(text)
    }

    /// `12.3 KB`.
    func bytes(_ value: UInt64) -> String {
        SnapshotText.bytes(value)
    }

    /// `12,345`.
    func number(_ value: Int) -> String {
        ReportNaming.grouped(value)
    }

    /// A link to object `object`: its shown type and address.
    func objectLink(_ object: Int) -> String {
        "<a href=\"/object/\(object)\">\(escape(names[Int(snapshot.objects.type[object])]))</a> "
            + "<span class=\"address\">\(snapshot.addressText(of: object))</span>"
    }

    /// Badges for an object: leaked, orphan, root.
    func badges(_ object: Int) -> String {
        var badges: [String] = []
        let flags = snapshot.objects.flags[object]
        if flags.contains(.leaked) { badges.append("<span class=\"badge leaked\">leaked</span>") }
        if flags.contains(.orphan) { badges.append("<span class=\"badge leaked\">orphan</span>") }
        if rootOf[object] != nil { badges.append("<span class=\"badge root\">root</span>") }
        return badges.joined(separator: " ")
    }

    /// The whole page: head, the header with the program and totals, the navigation, and `body`.
    func page(title: String, body: String) -> String {
        let info = snapshot.info
        let command =
            ([ReportNaming.programName(LeakReport.Program(path: info.programPath, arguments: [], exitStatus: 0))]
            + info.arguments.map(ReportNaming.shellQuoted)).joined(separator: " ")
        let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: info.time))
        let leaked = snapshot.leakedObjects.count
        var navigation = [
            "<a href=\"/types\">Types</a>", "<a href=\"/dominators\">Dominators</a>",
            "<a href=\"/leaks\">Leaks (\(number(leaked)))</a>",
        ]
        if old != nil { navigation.append("<a href=\"/comparison\">Comparison</a>") }
        let origin =
            info.origin == .leakReport ? " <span class=\"badge\">a leak report: its leaked objects alone</span>" : ""
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(escape(title)) — LeakGraph</title><style>\(Self.css)</style></head>
            <body><header><strong>LeakGraph</strong> · <code>\(escape(command))</code> · \(escape(time))\(origin)<br>
            <span class="totals">\(number(snapshot.objects.count)) objects, \(bytes(analysis.totalBytes)), \
            \(number(snapshot.references.count)) references, \(number(snapshot.roots.count)) roots, \(number(leaked)) leaked</span></header>
            <nav>\(navigation.joined(separator: " "))</nav>
            <main>
            \(body)
            </main></body></html>

            """
    }

    /// The site's style sheet: the leak report's colours and backtraces (``HTMLStyle``), then the
    /// site's own layout.
    static let css = HTMLStyle.palette + HTMLStyle.frames + layout

    /// The site's own rules.
    private static let layout = """
        body{font:14px/1.45 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{background:#263238;color:#eceff1;padding:8px 16px}header code{color:#fff}
        .totals{color:#b0bec5;font-size:12px}
        nav{background:#fff;border-bottom:1px solid #ddd;padding:6px 16px}nav a{margin-right:16px;font-weight:600}
        main{padding:12px 16px}a{color:#1a56b0;text-decoration:none}a:hover{text-decoration:underline}
        table{border-collapse:collapse;background:#fff;margin:8px 0}th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
        th{background:#f0f0f0;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        .address{color:#777;font-family:ui-monospace,Menlo,monospace;font-size:12px}
        .badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:11px;background:#eceff1;color:#37474f}
        .badge.leaked{background:var(--member);color:#8e1b1b}.badge.root{background:#dbe9ff;color:#1a56b0}
        .frames .program code{font-weight:700;color:#111}.frames .library,.frames .runtime,.frames .unknown{color:#8a8a8a}
        form.filter{background:#fff;border:1px solid #ddd;padding:8px;display:inline-block}
        .grown td{background:#fff4e5}.new td{background:#fff0f0}.gone td,.shrunk td{color:#666}
        .graph svg{max-width:100%;height:auto;background:#fff;border:1px solid #ddd}
        dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 16px}dl.facts dt{color:#555}dl.facts dd{margin:0}
        """
}
