import LeakGraphModel
import LeakGraphReport

/// The HTML report: one self-contained file to open in a browser.
///
/// ``render(_:graphs:)`` is a pure function of the report and the graphs already rendered to SVG. The
/// page has no external resources (styles inline, SVGs inline, no scripts, no fonts or images to load):
///
/// - **Summary**: program and command line; the command's verdict and exit status when the caller knows
///   them (``RenderContext``), the program's own status; the checked code's own leaked
///   objects, bytes, families and root cycles, and what known library leaks hold, apart.
/// - **Leak families table**: one row per family (root cycles with one fingerprint,
///   ``LeakGraphReport/LeakReport/families``), the code's own first: its first cycle's number (a link to
///   its section) and the others', the tests that made them (at most ``tableTestLimit``, then how many
///   more), members and held objects, bytes, the largest types, the fingerprint and the suspect with its
///   fix. A name longer than ``nameLimit`` characters is shortened (generic arguments written `<…>`,
///   then cut in the middle), the full name on hover. Known library leaks are rows
///   of a collapsed part of the table.
/// - **Overview** graph, when one was rendered (several families, or objects outside cycles), limited to
///   what can be read (``DOTRenderer/Options/overviewFamilyLimit`` families), then a link to each family
///   it leaves out.
/// - **One section per family**: the suspect (reason and fix), the fingerprint, where it was found, the
///   first cycle's SVG with a legend, its leak trace (the text report's section, verbatim) and its
///   objects' creation backtraces, grouped by type and identical backtrace (at most
///   ``backtraceGroupLimit`` groups and ``addressLimit`` addresses per group are listed, with counts of
///   the rest). Known library leaks' sections are collapsed, after the code's own.
/// - Leaked objects outside every cycle, then the walk's diagnostics, those about library internals
///   collapsed.
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
    /// Type names longer than this are shortened in the table (the full name on hover).
    public static let nameLimit = 72
    /// How many tests a row of the leak families table names before "and N more".
    static let tableTestLimit = 3

    /// Renders `report` as an HTML page.
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - graphs: Rendered graphs (from ``SVGRenderer/render(_:progress:)``); the overview is shown when
    ///     present, and each cycle's graph in its section. Cycles without a graph say so.
    /// - Returns: The page, starting with `<!DOCTYPE html>`.
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references, plus the text report's cost and the
    ///   size of the SVGs.
    public static func render(_ report: LeakReport, graphs: [RenderedGraph], context: RenderContext = RenderContext())
        -> String
    {
        var page = HTMLPage(index: ReportIndex(report), graphs: graphs, context: context)
        return page.render()
    }
}

/// The state of one rendering of the HTML report.
private struct HTMLPage {
    let index: ReportIndex
    let context: RenderContext
    /// The report's families (``LeakReport/families``), the code's own first.
    let families: [LeakReport.Family]
    let overviewSVG: String?
    let cycleSVGs: [Int: String]
    /// The text report's section of each cycle, by position in `report.cycles`.
    let traceSections: [String]
    var html: [String] = []

    var report: LeakReport { index.report }

    init(index: ReportIndex, graphs: [RenderedGraph], context: RenderContext) {
        self.index = index
        self.context = context
        self.families = index.report.families
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
        traceSections = TextReport.cycleSections(of: index.report)
    }

    mutating func render() -> String {
        // A check inside a test names no program: the check itself titles the page.
        let program =
            report.program.path.isEmpty ? (context.command ?? "leak check") : ReportNaming.programName(report.program)
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
        let library = families.filter { $0.standing == .knownLibraryLeak }
        for family in families where family.standing != .knownLibraryLeak {
            renderCycle(family.representative, family: family)
        }
        if !library.isEmpty {
            let cycles = library.reduce(0) { $0 + $1.cycles.count }
            let objects = library.reduce(0) { $0 + $1.objects }
            html.append("<details class=\"library\" id=\"library-leaks\">")
            html.append(
                "<summary>Known library leaks: \(e(ReportNaming.count(cycles, "root cycle"))), "
                    + "\(e(ReportNaming.count(objects, "object"))) <span class=\"muted\">— not your code; reported, not failing the check</span></summary>"
            )
            for family in library {
                renderCycle(family.representative, family: family)
            }
            html.append("</details>")
        }
        renderUnlisted()
        renderDiagnostics()
        html += report.allocations.map(HTMLAllocationSection.lines) ?? []
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
        let totals = report.totals
        let command = ReportNaming.commandLine(report.program)
        html.append("<header>")
        html.append("<h1>LeakGraph report: <span class=\"program\">\(e(program))</span></h1>")
        if let checked = context.command, !report.program.path.isEmpty {
            html.append("<p class=\"command\"><code>\(e(checked))</code></p>")
        }
        if !report.program.path.isEmpty {
            let ending =
                report.program.signal.map { "ended by \($0), checked first" }
                ?? "exit status \(report.program.exitStatus)"
            html.append(
                "<p class=\"command\"><span class=\"muted\">Program:</span> <code>\(e(command))</code> "
                    + "<span class=\"muted\">· \(e(ending))</span></p>")
        }
        html.append("</header>")
        let verdict = totals.ownObjects > 0 ? "bad" : "good"
        if context.verdict != nil || context.exitStatus != nil {
            var text = context.verdict.map { e($0) } ?? ""
            if let status = context.exitStatus, context.verdict?.contains("exit status \(status)") != true {
                text += (text.isEmpty ? "" : " · ") + "exit status \(status)"
            }
            html.append("<p class=\"verdict \(verdict)\">\(text)</p>")
        }
        html.append("<section class=\"stats\">")
        html.append(
            stat(
                totals.ownObjects,
                totals.ownObjects == 1 ? "leaked object of your code" : "leaked objects of your code", verdict))
        html.append(stat(totals.ownBytes, totals.ownBytes == 1 ? "byte leaked" : "bytes leaked", verdict))
        html.append(stat(totals.ownFamilies, totals.ownFamilies == 1 ? "leak family" : "leak families", verdict))
        html.append(stat(totals.ownCycles, totals.ownCycles == 1 ? "root cycle" : "root cycles", verdict))
        if totals.libraryCycles > 0 {
            html.append(stat(totals.libraryObjects, "objects in known library leaks (not your code)", ""))
        }
        html.append(stat(summary.trackedObjects, "objects tracked", ""))
        html.append(stat(summary.liveObjects, "live objects walked", ""))
        html.append("</section>")
        if report.leaks.isEmpty {
            html.append("<p class=\"verdict good\">No leaks found.</p>")
        }
        let suppressed = report.suppressedCycles.count
        if suppressed > 0 {
            let new = report.newCycles.count
            html.append(
                "<p class=\"verdict baseline\">\(e(ReportNaming.count(new, "new leak"))), "
                    + "\(ReportNaming.grouped(suppressed)) suppressed by the baseline (root cycles).</p>")
        }
    }

    func stat(_ value: Int, _ label: String, _ kind: String) -> String {
        "<div class=\"stat \(kind)\"><b>\(ReportNaming.grouped(value))</b><span>\(e(label))</span></div>"
    }

    mutating func renderCycleTable() {
        guard !report.cycles.isEmpty else { return }
        html.append("<section>")
        html.append("<h2>Leak families <small>root cycles with one fingerprint, your code's first</small></h2>")
        html.append("<table class=\"cycles\">")
        let head =
            "<thead><tr><th>Cycles</th><th>Found in</th><th class=\"num\">Objects</th><th class=\"num\">Held</th>"
            + "<th class=\"num\">Bytes</th><th>Types</th><th>Fingerprint</th><th>Suspect</th></tr></thead>"
        html.append(head)
        html.append("<tbody>")
        for family in families where family.standing != .knownLibraryLeak {
            html.append(familyRow(family))
        }
        html.append("</tbody>")
        let library = families.filter { $0.standing == .knownLibraryLeak }
        if !library.isEmpty {
            let cycles = library.reduce(0) { $0 + $1.cycles.count }
            html.append(
                "<tbody class=\"library-rows\"><tr><td colspan=\"8\"><details><summary>"
                    + "\(e(ReportNaming.count(cycles, "known library leak"))) — not your code</summary><table class=\"cycles\">"
            )
            for family in library {
                html.append(familyRow(family))
            }
            html.append("</table></details></td></tr></tbody>")
        }
        html.append("</table>")
        html.append("</section>")
    }

    /// The table row of `family`.
    func familyRow(_ family: LeakReport.Family) -> String {
        let cycle = family.representative
        let value = report.cycles[cycle]
        let (members, held) = parts(of: value)
        // The cycle's own types always show; the held ones up to the limit.
        func listed(_ groups: [TypeTally], limit: Int) -> String {
            let shown = groups.prefix(limit).map { "\(name($0.type)) × \(ReportNaming.grouped($0.count))" }
            return (shown + (groups.count > limit ? ["…"] : [])).joined(separator: ", ")
        }
        var typeText = listed(typeGroups(members), limit: .max)
        if !held.isEmpty {
            typeText += "; holds " + listed(typeGroups(held), limit: HTMLReport.tableTypeLimit)
        }
        let fingerprint = value.fingerprint.map { "<code>\(e($0))</code>" } ?? "<span class=\"muted\">—</span>"
        let suspect =
            value.knownLibraryLeak != nil
            ? "<span class=\"muted\">not your code</span>"
            : value.suspect.map { suspect in
                "<code>\(name(suspectName(value)))</code><br><span class=\"hint\">\(CodeSpans.html(suspect.hint, abbreviating: name))</span>"
            } ?? "<span class=\"muted\">—</span>"
        var tag = value.suppressed == nil ? "" : " <span class=\"suppressed-tag\">suppressed</span>"
        if value.knownLibraryLeak != nil { tag += " <span class=\"suppressed-tag\">library</span>" }
        var numbers = "<a href=\"#cycle-\(cycle + 1)\">#\(cycle + 1)</a>\(tag)"
        if family.cycles.count > 1 {
            numbers +=
                "<br><span class=\"muted\">and \(ReportNaming.grouped(family.cycles.count - 1)) more like it</span>"
        }
        let found = foundCell(family)
        let greyed = value.suppressed != nil || value.knownLibraryLeak != nil
        return "<tr\(greyed ? " class=\"suppressed\"" : "")><td>\(numbers)</td>"
            + "<td class=\"found\">\(found)</td>"
            + "<td class=\"num\">\(ReportNaming.grouped(family.cycles.count > 1 ? family.objects : members.count))</td>"
            + "<td class=\"num\">\(ReportNaming.grouped(family.cycles.count > 1 ? family.objects - members.count * family.cycles.count : held.count))</td>"
            + "<td class=\"num\">\(ReportNaming.grouped(family.bytes))</td>"
            + "<td class=\"types\">\(typeText)</td><td>\(fingerprint)</td><td class=\"suspect-cell\">\(suspect)</td></tr>"
    }

    /// A type name (or a reference, `Type.path`) for the table: escaped; past ``HTMLReport/nameLimit``
    /// characters its generic arguments are written `<…>` (`Publishers.Zip4<…>.(private).Inner<…>`), and
    /// what is still too long is cut in the middle; the full name on hover.
    func name(_ type: String) -> String {
        guard type.count > HTMLReport.nameLimit else { return e(type) }
        var short = ReportNaming.genericArgumentsElided(type)
        if short.count > HTMLReport.nameLimit {
            short = short.prefix(HTMLReport.nameLimit / 2) + "…" + short.suffix(HTMLReport.nameLimit / 2 - 1)
        }
        return "<abbr title=\"\(e(type))\">\(e(short))</abbr>"
    }

    /// The table's "Found in" cell of `family`: the tests, one a line, at most
    /// ``HTMLReport/tableTestLimit`` then how many more (all of them on hover); "outside any test"; or the run.
    func foundCell(_ family: LeakReport.Family) -> String {
        let cycles = family.cycles.map { report.cycles[$0] }
        var tests: [String] = []
        var outside = false
        var observed = false
        for cycle in cycles {
            guard let names = cycle.tests else { continue }
            observed = true
            if names.isEmpty { outside = true }
            for test in names where !tests.contains(test) { tests.append(test) }
        }
        guard observed else { return e(ReportNaming.foundIn(cycles) ?? "—") }
        var lines = tests.prefix(HTMLReport.tableTestLimit).map { e($0) }
        if tests.count > HTMLReport.tableTestLimit {
            let more = tests.count - HTMLReport.tableTestLimit
            lines.append("<abbr class=\"muted\" title=\"\(e(tests.joined(separator: "\n")))\">and \(more) more</abbr>")
        }
        if outside { lines.append("<span class=\"muted\">outside any test</span>") }
        return lines.joined(separator: "<br>")
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
        let rest = families.dropFirst(DOTRenderer.Options().overviewFamilyLimit)
        if !rest.isEmpty {
            let links = rest.map { family in
                "<a href=\"#cycle-\(family.representative + 1)\">#\(family.representative + 1)</a>"
                    + (family.cycles.count > 1
                        ? " <span class=\"muted\">×\(ReportNaming.grouped(family.cycles.count))</span>" : "")
            }
            html.append("<p class=\"more-families\">Not drawn in the overview: \(links.joined(separator: ", "))</p>")
        }
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

    mutating func renderCycle(_ cycle: Int, family: LeakReport.Family? = nil) {
        let value = report.cycles[cycle]
        let (members, held) = parts(of: value)
        let summary = CycleSummary(index, members: members, held: held)
        let kind = value.suppressed == nil ? "cycle" : "cycle suppressed"
        html.append("<section class=\"\(kind)\" id=\"cycle-\(cycle + 1)\">")
        var subtitle = summary.memberText
        if !held.isEmpty {
            subtitle += " · holds \(summary.heldText)"
        }
        if value.isOrphan, let member = members.first {
            subtitle += " · orphan: \(ReportNaming.orphanText(report.leaks[member]))"
        }
        let others = family.map { Array($0.cycles.dropFirst()) } ?? []
        let alike = others.isEmpty ? "" : " and \(ReportNaming.grouped(others.count)) more like it"
        html.append("<h2>Root cycle #\(cycle + 1)\(alike) <small>\(e(subtitle))</small></h2>")
        // Every cycle of the family has its anchor here, so a link to any of them lands on the family.
        for other in others {
            html.append("<span class=\"anchor\" id=\"cycle-\(other + 1)\"></span>")
        }
        if let family, let found = ReportNaming.foundIn(family.cycles.map { report.cycles[$0] }) {
            let numbers =
                others.isEmpty
                ? ""
                : " <span class=\"muted\">(root cycles #\(([cycle] + others).prefix(20).map { String($0 + 1) }.joined(separator: ", #"))"
                    + (family.cycles.count > 20 ? ", …" : "") + ")</span>"
            html.append("<p class=\"found\">\(e(found)).\(numbers)</p>")
        }
        if let suppressed = value.suppressed {
            let place = suppressed.line.map { "\(suppressed.baseline), line \($0)" } ?? suppressed.baseline
            html.append(
                "<p class=\"suppressed-note\">Suppressed by the baseline: <code>\(e(suppressed.entry))</code> "
                    + "<span class=\"muted\">(\(e(place)))</span>"
                    + (suppressed.reason.map { " — \(e($0))" } ?? "") + ". Reported, not failing the check.</p>")
        }
        if let library = value.knownLibraryLeak {
            html.append(
                "<p class=\"suppressed-note\">Not your code — \(CodeSpans.html(library)) Reported, not failing the check.</p>"
            )
        }
        if let suspect = value.suspect, value.knownLibraryLeak == nil {
            html.append("<div class=\"suspect\">")
            html.append(
                "<p><b>⚠ Suspect: <code>\(e(suspectName(value)))</code></b> — \(CodeSpans.html(suspect.reason))</p>")
            html.append("<p><b>Fix:</b> \(CodeSpans.html(suspect.hint))</p>")
            html.append(HTMLReport.storeSiteHTML(suspect, index: index))
            var fixes: Set<[String]> = [[suspectName(value), suspect.hint]]
            for cut in value.otherCuts ?? [] where fixes.insert([cutName(cut), cut.hint]).inserted {
                html.append(
                    "<p><b>⚠ Also cut: <code>\(e(cutName(cut)))</code></b> — \(CodeSpans.html(cut.reason))"
                        + "<br><b>Fix:</b> \(CodeSpans.html(cut.hint))</p>"
                        + HTMLReport.storeSiteHTML(cut, index: index))
            }
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
        html.append("<h3>Leak trace</h3>")
        html.append("<pre class=\"trace\">\(e(traceSections[cycle]))</pre>")
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
            if let last, groups[last].role == role, groups[last].name == name, groups[last].backtrace == leak.backtrace
            {
                match = last
            } else {
                let key =
                    "\(role)\u{1}\(name)\u{1}\(leak.backtrace.count)\u{1}" + (leak.backtrace.first?.function ?? "")
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
                groups.append(
                    Group(name: name, role: role, backtrace: leak.backtrace, positions: [position], bytes: leak.size))
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
                return
                    "<code title=\"\(e("\(leak.type), retain count \(leak.retainCount)"))\">\(e(leak.address))</code>"
            }
            var addresses = shown.joined(separator: " ")
            if count > shown.count {
                addresses += " <span class=\"muted\">… and \(ReportNaming.grouped(count - shown.count)) more</span>"
            }
            html.append("<p class=\"addresses\">\(addresses)</p>")
            if group.backtrace.isEmpty {
                html.append("<p class=\"muted\">No creation backtrace was recorded.</p>")
            } else {
                let site = ReportNaming.creationSite(of: report.leaks[group.positions[0]])
                var marked = false
                html.append("<ol class=\"frames\">")
                for frame in group.backtrace {
                    let place = frame.file.map { ReportNaming.place(file: $0, line: frame.line) }
                    let isSite =
                        !marked
                        && site.map {
                            $0.function == frame.function
                                && ($0.place == place
                                    || $0.place == frame.file.map { ReportNaming.place(file: $0, line: nil) })
                        } == true
                    marked = marked || isSite
                    html.append(
                        HTMLBacktrace.item(function: frame.function, file: frame.file, place: place, isSite: isSite))
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
        let library = report.diagnostics.filter { ReportNaming.library(of: $0) != nil }
        let own = report.diagnostics.filter { ReportNaming.library(of: $0) == nil }
        func table(_ diagnostics: [WalkDiagnostic]) {
            html.append(
                "<table><thead><tr><th>Type</th><th>Reason</th><th class=\"num\">Objects</th></tr></thead><tbody>")
            for diagnostic in diagnostics {
                html.append(
                    "<tr><td class=\"types\"><code>\(name(diagnostic.typeName))</code></td><td>\(e(diagnostic.reason))"
                        + (diagnostic.site.map { "<br><span class=\"muted\">one made at \(e($0))</span>" } ?? "")
                        + "</td>"
                        + "<td class=\"num\">\(ReportNaming.grouped(diagnostic.objectCount))</td></tr>"
                )
            }
            html.append("</tbody></table>")
        }
        if !own.isEmpty {
            table(own)
        }
        if !library.isEmpty {
            let objects = library.reduce(0) { $0 + $1.objectCount }
            html.append(
                "<details><summary>\(e(ReportNaming.count(objects, "object"))) of the Swift runtime's, Foundation's, Dispatch's "
                    + "and the test libraries' internals</summary>")
            table(library)
            html.append("</details>")
        }
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
    func suspectName(_ cycle: LeakReport.Cycle) -> String {
        DOTRenderer.suspectName(index, cycle) ?? ""
    }

    func cutName(_ cut: LeakReport.Suspect) -> String {
        DOTRenderer.cutName(index, cut)
    }

    /// Types of `positions` in ``ReportNaming/typeGroups(_:)`` order.
    func typeGroups(_ positions: [Int]) -> [TypeTally] {
        ReportNaming.typeGroups(positions.lazy.map { (name: index.typeName($0), size: report.leaks[$0].size) })
    }
}
