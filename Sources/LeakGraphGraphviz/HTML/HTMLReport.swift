import LeakGraphReport

/// The HTML report: one self-contained file to open in a browser.
///
/// ``render(_:graphs:)`` is a pure function of the report and the graphs already rendered to SVG. The
/// page has no external resources (styles inline, SVGs inline, no scripts, no fonts or images to load):
///
/// - **Summary**: program, command line and exit status; leaked objects and bytes, root cycles, tracked
///   and live objects.
/// - **Root cycles table**: per cycle its number (a link to its section), members and held objects,
///   bytes, the largest types, the fingerprint and the suspect with its fix.
/// - **Overview** graph, when one was rendered (several cycles, or objects outside cycles).
/// - **One section per cycle**: the suspect (reason and fix), the fingerprint, the cycle's SVG with a
///   legend, its leak trace (the text report's section for the cycle, verbatim) and its objects'
///   creation backtraces, grouped by type and identical backtrace (at most ``backtraceGroupLimit``
///   groups and ``addressLimit`` addresses per group are listed, with counts of the rest).
/// - Leaked objects outside every cycle, then the walk's diagnostics.
///
/// Every text from the report is escaped; SVGs are inserted as `<svg>` elements (Graphviz escapes their
/// text).
public enum HTMLReport {
    /// The most backtrace groups listed per cycle.
    public static let backtraceGroupLimit = 50
    /// The most addresses listed per backtrace group.
    public static let addressLimit = 12
    /// The most types named in a row of the cycles table.
    static let tableTypeLimit = 3

    /// Renders `report` as an HTML page.
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - graphs: Rendered graphs (from ``SVGRenderer/render(_:progress:)``); the overview is shown when
    ///     present, and each cycle's graph in its section. Cycles without a graph say so.
    /// - Returns: The page, starting with `<!DOCTYPE html>`.
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references, plus the text report's cost and the
    ///   size of the SVGs.
    public static func render(_ report: LeakReport, graphs: [RenderedGraph]) -> String {
        var page = HTMLPage(index: ReportIndex(report), graphs: graphs)
        return page.render()
    }
}

/// The state of one rendering of the HTML report.
private struct HTMLPage {
    let index: ReportIndex
    let overviewSVG: String?
    let cycleSVGs: [Int: String]
    let traceSections: [Int: String]
    var html: [String] = []

    var report: LeakReport { index.report }

    init(index: ReportIndex, graphs: [RenderedGraph]) {
        self.index = index
        var overview: String?
        var cycles: [Int: String] = [:]
        for rendered in graphs {
            switch rendered.graph.subject {
            case .overview: overview = overview ?? rendered.svg
            case .cycle(let cycle): cycles[cycle] = cycles[cycle] ?? rendered.svg
            }
        }
        overviewSVG = overview
        cycleSVGs = cycles
        traceSections = Self.cycleSections(of: TextReport.render(index.report))
    }

    /// The text report's section of each cycle, by position in `report.cycles`: the `ROOT CYCLE #n` line
    /// and the indented lines after it.
    static func cycleSections(of text: String) -> [Int: String] {
        var result: [Int: String] = [:]
        var current: Int?
        var lines: [Substring] = []
        func finish() {
            if let current {
                while let last = lines.last, last.allSatisfy(\.isWhitespace) { lines.removeLast() }
                result[current] = lines.joined(separator: "\n")
            }
            current = nil
            lines = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("ROOT CYCLE #") {
                finish()
                let digits = line.dropFirst("ROOT CYCLE #".count).prefix { $0.isASCII && $0.isNumber }
                if let number = Int(digits), number >= 1 {
                    current = number - 1
                    lines = [line]
                }
            } else if current != nil {
                if line.isEmpty || line.first == " " {
                    lines.append(line)
                } else {
                    finish()
                }
            }
        }
        finish()
        return result
    }

    mutating func render() -> String {
        let program = ReportNaming.programName(report)
        let summary = report.summary
        let leaks = ReportNaming.count(summary.leakedObjects, "leak")
        html.append("<!DOCTYPE html>")
        html.append("<html lang=\"en\">")
        html.append("<head>")
        html.append("<meta charset=\"utf-8\">")
        html.append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        html.append("<title>\(e("LeakGraph · \(program) · \(leaks)"))</title>")
        html.append("<style>\n\(HTMLStyle.css)</style>")
        html.append("</head>")
        html.append("<body>")
        html.append("<main>")
        renderHeader(program: program)
        renderCycleTable()
        renderOverview()
        for cycle in report.cycles.indices {
            renderCycle(cycle)
        }
        renderUnlisted()
        renderDiagnostics()
        html.append(
            "<footer>Generated by LeakGraph · JSON report schema version \(report.schemaVersion) · "
                + "graphs laid out with Graphviz</footer>"
        )
        html.append("</main>")
        html.append("</body>")
        html.append("</html>")
        return html.joined(separator: "\n") + "\n"
    }

    // MARK: Header and table

    mutating func renderHeader(program: String) {
        let summary = report.summary
        let command = ([report.program.path] + report.program.arguments.map(Self.shellQuoted)).joined(separator: " ")
        html.append("<header>")
        html.append("<h1>LeakGraph report: <span class=\"program\">\(e(program))</span></h1>")
        html.append(
            "<p class=\"command\"><code>\(e(command))</code> <span class=\"muted\">· exit status "
                + "\(report.program.exitStatus)</span></p>"
        )
        html.append("</header>")
        let verdict = summary.leakedObjects > 0 ? "bad" : "good"
        html.append("<section class=\"stats\">")
        html.append(stat(summary.leakedObjects, summary.leakedObjects == 1 ? "leaked object" : "leaked objects", verdict))
        html.append(stat(summary.leakedBytes, summary.leakedBytes == 1 ? "byte leaked" : "bytes leaked", verdict))
        html.append(stat(summary.rootCycles, summary.rootCycles == 1 ? "root cycle" : "root cycles", verdict))
        html.append(stat(summary.trackedObjects, "objects tracked", ""))
        html.append(stat(summary.liveObjects, "live objects walked", ""))
        html.append("</section>")
        if report.leaks.isEmpty {
            html.append("<p class=\"verdict good\">No leaks found.</p>")
        }
    }

    func stat(_ value: Int, _ label: String, _ kind: String) -> String {
        "<div class=\"stat \(kind)\"><b>\(ReportNaming.grouped(value))</b><span>\(e(label))</span></div>"
    }

    mutating func renderCycleTable() {
        guard !report.cycles.isEmpty else { return }
        html.append("<section>")
        html.append("<h2>Root cycles</h2>")
        html.append("<table class=\"cycles\">")
        html.append(
            "<thead><tr><th>Cycle</th><th class=\"num\">Objects</th><th class=\"num\">Held</th>"
                + "<th class=\"num\">Bytes</th><th>Types</th><th>Fingerprint</th><th>Suspect</th></tr></thead>"
        )
        html.append("<tbody>")
        for (cycle, value) in report.cycles.enumerated() {
            let (members, held) = parts(of: value)
            let bytes = (members + held).reduce(0) { $0 + report.leaks[$1].size }
            let types = typeGroups(members + held)
            var typeText = types.prefix(HTMLReport.tableTypeLimit).map { "\($0.name) × \(ReportNaming.grouped($0.count))" }
                .joined(separator: ", ")
            if types.count > HTMLReport.tableTypeLimit {
                typeText += ", …"
            }
            let fingerprint = value.fingerprint.map { "<code>\(e($0))</code>" } ?? "<span class=\"muted\">—</span>"
            let suspect = value.suspect.map { suspect in
                "<code>\(e(suspectName(suspect)))</code><br><span class=\"hint\">\(e(suspect.hint))</span>"
            } ?? "<span class=\"muted\">—</span>"
            html.append(
                "<tr><td><a href=\"#cycle-\(cycle + 1)\">#\(cycle + 1)</a></td>"
                    + "<td class=\"num\">\(ReportNaming.grouped(members.count))</td>"
                    + "<td class=\"num\">\(ReportNaming.grouped(held.count))</td>"
                    + "<td class=\"num\">\(ReportNaming.grouped(bytes))</td>"
                    + "<td class=\"types\">\(e(typeText))</td><td>\(fingerprint)</td><td>\(suspect)</td></tr>"
            )
        }
        html.append("</tbody>")
        html.append("</table>")
        html.append("</section>")
    }

    // MARK: Graphs

    mutating func renderOverview() {
        guard let overviewSVG, let svg = HTMLText.inlineSVG(overviewSVG) else { return }
        html.append("<section id=\"overview\">")
        html.append("<h2>Overview</h2>")
        html.append("<figure class=\"graph\">")
        html.append("<div class=\"graph-frame\">\n\(svg)\n</div>")
        html.append(legend)
        html.append("</figure>")
        html.append("</section>")
    }

    var legend: String {
        """
        <figcaption class="legend">\
        <span><i class="swatch member"></i>cycle member</span>\
        <span><i class="swatch held"></i>held by the cycle</span>\
        <span><i class="line in-cycle"></i>strong reference in the cycle</span>\
        <span><i class="line strong"></i>other strong reference</span>\
        <span><i class="line not-strong"></i>weak / unowned</span>\
        <span><i class="line suspect-edge"></i>suspect</span>\
        <span class="muted">Hover a node or an edge for details.</span>\
        </figcaption>
        """
    }

    // MARK: Cycles

    mutating func renderCycle(_ cycle: Int) {
        let value = report.cycles[cycle]
        let (members, held) = parts(of: value)
        let summary = CycleSummary(index, members: members, held: held)
        html.append("<section class=\"cycle\" id=\"cycle-\(cycle + 1)\">")
        var subtitle = summary.memberText
        if !held.isEmpty {
            subtitle += " · holds \(summary.heldText)"
        }
        html.append("<h2>Root cycle #\(cycle + 1) <small>\(e(subtitle))</small></h2>")
        if let suspect = value.suspect {
            html.append("<div class=\"suspect\">")
            html.append("<p><b>⚠ Suspect: <code>\(e(suspectName(suspect)))</code></b> — \(e(suspect.reason))</p>")
            html.append("<p><b>Fix:</b> \(e(suspect.hint))</p>")
            html.append("</div>")
        }
        if let fingerprint = value.fingerprint {
            html.append("<p class=\"fingerprint\">Fingerprint <code>\(e(fingerprint))</code></p>")
        }
        if let document = cycleSVGs[cycle], let svg = HTMLText.inlineSVG(document) {
            html.append("<figure class=\"graph\">")
            html.append("<div class=\"graph-frame\">\n\(svg)\n</div>")
            html.append(legend)
            html.append("</figure>")
        } else {
            html.append("<p class=\"muted\">No graph was drawn for this cycle.</p>")
        }
        if let trace = traceSections[cycle] {
            html.append("<h3>Leak trace</h3>")
            html.append("<pre class=\"trace\">\(e(trace))</pre>")
        }
        renderBacktraces(members: members, held: held, open: members.count + held.count <= 20)
        html.append("</section>")
    }

    /// Objects grouped by type, role and identical backtrace, each group with its addresses and frames.
    mutating func renderBacktraces(members: [Int], held: [Int], open: Bool) {
        struct Group {
            var name: String
            var role: String
            var backtrace: [LeakReport.Frame]
            var positions: [Int]
            var bytes: Int
        }
        var groups: [Group] = []
        var lookup: [String: [Int]] = [:]
        var last: Int?
        let memberCount = members.count
        for (offset, position) in (members + held).enumerated() {
            let leak = report.leaks[position]
            let role = offset < memberCount ? "member" : (leak.cycle == nil ? "unlisted" : "held")
            let name = index.typeName(position)
            // Objects made at one place tend to follow each other: try the last group first.
            let match: Int?
            if let last, groups[last].role == role, groups[last].name == name, groups[last].backtrace == leak.backtrace {
                match = last
            } else {
                let key = "\(role)\u{1}\(name)\u{1}\(leak.backtrace.count)\u{1}" + (leak.backtrace.first?.function ?? "")
                match = lookup[key, default: []].first { groups[$0].backtrace == leak.backtrace }
                if match == nil {
                    lookup[key, default: []].append(groups.count)
                }
            }
            if let match {
                groups[match].positions.append(position)
                groups[match].bytes += leak.size
                last = match
            } else {
                last = groups.count
                groups.append(Group(name: name, role: role, backtrace: leak.backtrace, positions: [position], bytes: leak.size))
            }
        }
        let objectCount = members.count + held.count
        html.append("<details class=\"objects\"\(open ? " open" : "")>")
        html.append(
            "<summary>Objects and creation backtraces <span class=\"muted\">(\(e(ReportNaming.count(objectCount, "object")))"
                + " in \(e(ReportNaming.count(groups.count, "group"))))</span></summary>"
        )
        for group in groups.prefix(HTMLReport.backtraceGroupLimit) {
            let roleText = group.role == "member" ? "cycle member" : (group.role == "held" ? "held" : "leaked")
            let count = group.positions.count
            html.append("<div class=\"object-group\">")
            html.append(
                "<h4>\(e(group.name))\(count > 1 ? " × \(ReportNaming.grouped(count))" : "") "
                    + "<span class=\"role \(group.role)\">\(roleText)</span> "
                    + "<small>\(e(ReportNaming.count(group.bytes, "byte")))</small></h4>"
            )
            let shown = group.positions.prefix(HTMLReport.addressLimit).map { position in
                let leak = report.leaks[position]
                return "<code title=\"\(e("\(leak.type), retain count \(leak.retainCount)"))\">\(e(leak.address))</code>"
            }
            var addresses = shown.joined(separator: " ")
            if count > shown.count {
                addresses += " <span class=\"muted\">… and \(ReportNaming.grouped(count - shown.count)) more</span>"
            }
            html.append("<p class=\"addresses\">\(addresses)</p>")
            if group.backtrace.isEmpty {
                html.append("<p class=\"muted\">No creation backtrace was recorded.</p>")
            } else {
                let site = ReportNaming.creationSite(group.backtrace)
                var marked = false
                html.append("<ol class=\"frames\">")
                for frame in group.backtrace {
                    let place = frame.file.map { ReportNaming.place(file: $0, line: frame.line) }
                    let isSite = !marked && site.map { $0.function == frame.function && $0.place == place } == true
                    marked = marked || isSite
                    var item = "<li\(isSite ? " class=\"site\"" : "")><code>\(e(frame.function))</code>"
                    if let file = frame.file, let place {
                        item += " <span class=\"where\" title=\"\(e(file))\">\(e(place))</span>"
                    }
                    if isSite {
                        item += " <span class=\"site-tag\">creation site</span>"
                    }
                    html.append(item + "</li>")
                }
                html.append("</ol>")
            }
            html.append("</div>")
        }
        if groups.count > HTMLReport.backtraceGroupLimit {
            let rest = groups.dropFirst(HTMLReport.backtraceGroupLimit).reduce(0) { $0 + $1.positions.count }
            html.append(
                "<p class=\"muted\">… and \(ReportNaming.count(groups.count - HTMLReport.backtraceGroupLimit, "more group")) "
                    + "(\(ReportNaming.count(rest, "object"))).</p>"
            )
        }
        html.append("</details>")
    }

    // MARK: The rest

    mutating func renderUnlisted() {
        let unlisted = index.unlistedPositions
        guard !unlisted.isEmpty else { return }
        let bytes = unlisted.reduce(0) { $0 + report.leaks[$1].size }
        html.append("<section id=\"other\">")
        html.append(
            "<h2>Other leaked objects <small>\(e(ReportNaming.count(unlisted.count, "object"))), "
                + "\(e(ReportNaming.count(bytes, "byte")))</small></h2>"
        )
        renderBacktraces(members: [], held: unlisted, open: unlisted.count <= 20)
        html.append("</section>")
    }

    mutating func renderDiagnostics() {
        guard !report.diagnostics.isEmpty else { return }
        html.append("<section id=\"diagnostics\">")
        html.append("<h2>Not read exactly</h2>")
        html.append(
            "<p class=\"muted\">What these objects reference counts as held from outside, so a leak there can "
                + "be missed (never invented).</p>"
        )
        html.append("<table><thead><tr><th>Type</th><th>Reason</th><th class=\"num\">Objects</th></tr></thead><tbody>")
        for diagnostic in report.diagnostics {
            html.append(
                "<tr><td><code>\(e(diagnostic.typeName))</code></td><td>\(e(diagnostic.reason))</td>"
                    + "<td class=\"num\">\(ReportNaming.grouped(diagnostic.objectCount))</td></tr>"
            )
        }
        html.append("</tbody></table>")
        html.append("</section>")
    }

    // MARK: Helpers

    func e(_ text: String) -> String {
        HTMLText.escaped(text)
    }

    /// The positions of a cycle's members and of the objects it holds (not members).
    func parts(of cycle: LeakReport.Cycle) -> (members: [Int], held: [Int]) {
        let members = index.positions(of: cycle.members)
        let memberSet = Set(members)
        return (members, index.positions(of: cycle.holds).filter { !memberSet.contains($0) })
    }

    /// `DummyObject.next`.
    func suspectName(_ suspect: LeakReport.Suspect) -> String {
        guard let from = index.position[suspect.from] else { return suspect.label }
        return "\(index.typeName(from)).\(suspect.label)"
    }

    /// Types of `positions` with counts, largest byte total first.
    func typeGroups(_ positions: [Int]) -> [(name: String, count: Int)] {
        var groups: [String: (count: Int, bytes: Int)] = [:]
        for position in positions {
            let name = index.typeName(position)
            groups[name, default: (0, 0)].count += 1
            groups[name, default: (0, 0)].bytes += report.leaks[position].size
        }
        return groups.sorted { a, b in
            if a.value.bytes != b.value.bytes { return a.value.bytes > b.value.bytes }
            if a.value.count != b.value.count { return a.value.count > b.value.count }
            return a.key < b.key
        }.map { ($0.key, $0.value.count) }
    }

    /// `arg` unchanged when it is plain; otherwise in single quotes.
    static func shellQuoted(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.allSatisfy {
            $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)
        }
        return plain ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
