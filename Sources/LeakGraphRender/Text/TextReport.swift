import LeakGraphModel
import LeakGraphReport
/// The human-readable leak summary, in the spirit of macOS `leaks`.
///
/// ``render(_:pathLimit:)`` is a pure function of a ``LeakReport`` value; it reads nothing else. The text:
///
/// ```
/// Process LinkedRing: 13 leaks for 416 total leaked bytes.
/// Process LinkedRing: 1,234 objects tracked, 1,200 live, 1 root cycle.
/// Command: /work/LinkedRing --leak   (exit status 0)
///
/// ROOT CYCLE #1: 10 objects, 320 bytes
///    DummyObject.next → DummyObject.next → … (10 objects in the ring) → DummyObject.next → DummyObject
///    Suspect: DummyObject.next — no reference in the cycle is named like a back-reference, … Fix: break the ring here: …
///    Fingerprint: 43a685ad0b19f2ad
///    DummyObject (0x5555aa001000, 32 bytes)  created at main.swift:12 in makeRing()
///      —next→ DummyObject (0x5555aa001040, 32 bytes)  created at main.swift:12 in makeRing()
///      …
///      —next→ ↺ DummyObject (0x5555aa001000)   (back to the start)  ← suspect
///    holds 3 objects, 96 bytes: Payload × 3 (96 bytes)
/// ```
///
/// - **Header**: leaks and leaked bytes; tracked and live objects and root cycles; the command line
///   and exit status.
/// - **Root cycles**, numbered `#1`, `#2`, … in report order (JSON cycle id + 1). The header counts the
///   cycle's members. Then the **leak trace** (TextReport+LeakTrace.swift): the ring through the cycle's
///   suspect as one path line (`MainViewController.registry → BikeRegistry.delegate → MainViewController`,
///   abbreviated past six references), `Suspect: Type.label — reason. Fix: hint.`, and `Fingerprint: …`;
///   the first two need the cycle's `suspect`, the last its `fingerprint`. Then the members are drawn as
///   a depth-first tree over the strong references among them, starting at the first member: each
///   object once, with its first line `—label→ Type (address, size)`; a reference to an object already
///   drawn is a `↺` line (`back to the start` for the first member, `shown above` otherwise). A run of
///   lines at one indentation is a path (each line is referenced by the one above); an object with
///   several references, or one with siblings, indents its references two more columns. The line drawing
///   the suspect reference ends with `← suspect`. At most `pathLimit` lines are drawn per cycle, then
///   `… N more objects in this cycle`. The tree is built with an explicit stack, so a ring of any length
///   is safe.
/// - **Creation site**: ``ReportNaming/creationSite(_:)`` — the first backtrace frame (the user's own frames
///   come first) with a real source file and line that is not compiler-generated (a class's
///   `__allocating_init` or a thunk, which only allocate or forward, so the line that called them is shown
///   instead); `<stdin>`-named files and line 0 are no place: `created at file.swift:12 in function` (file
///   name without its directory), or `created in function` for a frame without a file.
/// - **Held objects**: `holds N objects, B bytes:` then the types, largest byte total first, as
///   `Type × count (bytes)`; at most ten types, then `… and N more types`.
/// - **Type names** drop their leading module (`LinkedRing.DummyObject` → `DummyObject`) unless two leaked
///   types would then read the same; such types keep their full names everywhere.
/// - Names, creation sites, numbers and the command line follow ``ReportNaming``, as every renderer does.
/// - **Baselines**: when a baseline accepts root cycles (``LeakReport/Cycle/suppressed``), the body starts
///   with `N new leaks, M suppressed by the baseline (root cycles).` (known library leaks are neither), the
///   suppressed cycles get no section of their own, and a `Suppressed (baseline)` section after the
///   others counts them per baseline entry (TextReport+Baseline.swift).
/// - Leaked objects in no listed cycle (never produced by the builder) are listed by type under
///   `OTHER LEAKED OBJECTS`; walk diagnostics close the text. With no leaks the text says
///   `No leaks found.`
public enum TextReport {
    /// The default number of lines drawn per root cycle.
    public static let defaultPathLimit = 20

    /// How much the text says.
    public struct Options: Sendable, Equatable {
        /// Every root cycle in full, in report order, known library leaks too (`--expand`); otherwise
        /// cycles with one fingerprint are one section and known library leaks one line each.
        public var expand: Bool
        /// Every walk diagnostic on its own line (`--verbose`); otherwise those about the runtime's,
        /// Foundation's, Dispatch's and the test libraries' objects are counted in one line.
        public var verbose: Bool

        /// Creates options.
        public init(expand: Bool = false, verbose: Bool = false) {
            self.expand = expand
            self.verbose = verbose
        }
    }

    /// The maximum number of types listed in a `holds` line.
    static let heldTypeLimit = 10

    /// Renders `report` as text (ending with a newline).
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - pathLimit: The maximum number of object and `↺` lines drawn per root cycle (at least 1).
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references (plus sorting the type groups).
    public static func render(_ report: LeakReport, pathLimit: Int = defaultPathLimit, options: Options = Options())
        -> String
    {
        if let crash = report.crash {
            return crashed(program: report.program, crash: crash)
        }
        return header(program: report.program, summary: report.summary, totals: report.totals)
            + body(report, pathLimit: pathLimit, options: options)
    }

    /// The text of a report whose program crashed: the signal, the command, the faulting thread's
    /// frames and what the hook had recorded (ending with a newline).
    public static func crashed(program: LeakReport.Program, crash: LeakReport.Crash) -> String {
        let name = ReportNaming.programName(program)
        var lines = [
            "Process \(name) crashed with \(crash.signal)\(crash.faultAddress.map { " at address \($0)" } ?? ""); no leak check ran.",
            "Command: \(ReportNaming.commandLine(program))   (exit status \(program.exitStatus))",
            "",
            "Recorded until the crash: \(ReportNaming.count(crash.allocations, "Swift object")) allocated, "
                + "\(ReportNaming.grouped(crash.liveObjects)) alive.",
            "",
            "Crashed thread:",
        ]
        for (index, frame) in crash.frames.enumerated() {
            let place =
                frame.file.map { file in
                    " at \(file.split(separator: "/").last.map(String.init) ?? file)\(frame.line.map { ":\($0)" } ?? "")"
                } ?? ""
            lines.append("   #\(index) \(frame.function)\(place)")
        }
        if crash.frames.isEmpty {
            lines.append("   (no frames could be read)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The header that ``render(_:pathLimit:)`` starts with: three lines, each ending with a newline,
    /// that depend on the program and the totals alone (leaks and bytes; tracked and live objects and
    /// root cycles; the command line and exit status).
    ///
    /// `leakgraph run` writes it from the program it ran in front of the ``body(_:pathLimit:)`` the
    /// checked program rendered.
    ///
    /// With `totals` (``LeakReport/totals``), the first line counts the checked code's own leaks apart
    /// from known library leaks and what a baseline accepts, each of which gets a line of its own when
    /// there are any: `Process App: 6 leaks of your code for 249 total leaked bytes, in 2 leak families
    /// (3 root cycles).`, `Process App: not your code: 1 known library leak, 22 objects, 1,450 bytes
    /// (reported, not failing).` Without, it counts every leaked object (`Process App: 21 leaks for 768
    /// total leaked bytes.`).
    public static func header(
        program: LeakReport.Program, summary: LeakReport.Summary, totals: LeakReport.Totals? = nil
    ) -> String {
        let name = ReportNaming.programName(program)
        let tracked = ReportNaming.count(summary.trackedObjects, "object")
        let cycles = ReportNaming.count(summary.rootCycles, "root cycle")
        var lines: [String] = []
        if let totals {
            var own = "Process \(name): \(ReportNaming.count(totals.ownObjects, "leak")) of your code"
            if totals.ownObjects > 0 {
                own += " for \(ReportNaming.grouped(totals.ownBytes)) total leaked bytes"
            }
            if totals.ownCycles > 0 {
                own +=
                    ", in "
                    + "\(ReportNaming.count(totals.ownFamilies, "leak family", plural: "leak families")) "
                    + "(\(ReportNaming.count(totals.ownCycles, "root cycle")))"
            }
            lines.append(own + ".")
            if totals.suppressedCycles > 0 {
                lines.append(
                    "Process \(name): accepted by the baseline: \(ReportNaming.count(totals.suppressedCycles, "root cycle")), "
                        + "\(ReportNaming.count(totals.suppressedObjects, "object")), \(ReportNaming.count(totals.suppressedBytes, "byte"))."
                )
            }
            if totals.libraryCycles > 0 {
                lines.append(
                    "Process \(name): not your code: \(ReportNaming.count(totals.libraryCycles, "known library leak")), "
                        + "\(ReportNaming.count(totals.libraryObjects, "object")), \(ReportNaming.count(totals.libraryBytes, "byte")) "
                        + "(reported, not failing).")
            }
        } else {
            let leaks = ReportNaming.count(summary.leakedObjects, "leak")
            lines.append(
                "Process \(name): \(leaks) for \(ReportNaming.grouped(summary.leakedBytes)) total leaked bytes.")
        }
        lines.append(
            "Process \(name): \(tracked) tracked, \(ReportNaming.grouped(summary.liveObjects)) live, \(cycles).")
        lines.append("Command: \(ReportNaming.commandLine(program))   (\(Self.programState(program)))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// How the program stood at the check: `running, checked while it ran`, `ended by SIGTERM,
    /// checked first`, or `exit status N`.
    static func programState(_ program: LeakReport.Program) -> String {
        if program.running == true { return "running, checked while it ran" }
        return program.signal.map { "ended by \($0), checked first" } ?? "exit status \(program.exitStatus)"
    }

    /// Everything ``render(_:pathLimit:)`` writes after the ``header(program:summary:)``: the root
    /// cycles, other leaked objects, `No leaks found.`, the diagnostics and the allocation profile's
    /// top sites and types (`AllocationProfile/text(sites:end:)`, when the report has one) and the
    /// allocations of each test (`TestAllocations/text(_:)`, idem), ending with a newline. It does not depend on `report.program`.
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - pathLimit: The maximum number of object and `↺` lines drawn per root cycle (at least 1).
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references (plus sorting the type groups).
    public static func body(_ report: LeakReport, pathLimit: Int = defaultPathLimit, options: Options = Options())
        -> String
    {
        var renderer = TextRenderer(report: report, pathLimit: max(1, pathLimit))
        return renderer.renderBody(options: options) + (report.allocations.map { "\n" + $0.text() } ?? "")
            + (report.testAllocations.map { "\n" + TestAllocations.text($0) } ?? "")
    }

    /// Renders the section of one root cycle exactly as ``render(_:pathLimit:)`` writes it: the
    /// `ROOT CYCLE #n` line, the leak trace, the members' tree and the `holds` line, joined by line feeds
    /// without a final one (in the whole text it stands between blank lines).
    ///
    /// To render every cycle's section, ``cycleSections(of:pathLimit:)`` indexes the report once.
    ///
    /// - Parameters:
    ///   - cycle: The position of the cycle in `report.cycles` (it is numbered `cycle + 1`); must be valid.
    ///   - report: The report.
    ///   - pathLimit: The maximum number of object and `↺` lines drawn (at least 1).
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references (indexing the report).
    public static func cycleSection(_ cycle: Int, of report: LeakReport, pathLimit: Int = defaultPathLimit) -> String {
        precondition(report.cycles.indices.contains(cycle), "no root cycle at position \(cycle)")
        var renderer = TextRenderer(report: report, pathLimit: max(1, pathLimit))
        return renderer.cycleSection(cycle)
    }

    /// Renders the section of every root cycle (see ``cycleSection(_:of:pathLimit:)``), in the order of
    /// `report.cycles`.
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - pathLimit: The maximum number of object and `↺` lines drawn per root cycle (at least 1).
    /// - Returns: One section per element of `report.cycles`.
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references (plus sorting the type groups).
    public static func cycleSections(of report: LeakReport, pathLimit: Int = defaultPathLimit) -> [String] {
        var renderer = TextRenderer(report: report, pathLimit: max(1, pathLimit))
        return report.cycles.indices.map { renderer.cycleSection($0) }
    }

    /// Renders the section of each of `families` (from ``LeakReport/families``) as the text writes a
    /// family: its first cycle, titled for all of them, with every test that made one (see
    /// ``cycleSection(_:of:pathLimit:)``).
    public static func familySections(
        _ families: [LeakReport.Family], of report: LeakReport, pathLimit: Int = defaultPathLimit
    ) -> [String] {
        var renderer = TextRenderer(report: report, pathLimit: max(1, pathLimit))
        return families.map { renderer.familySection($0) }
    }
}

/// The state of one rendering: indexes built from the report and the output so far.
struct TextRenderer {
    let index: ReportIndex
    let pathLimit: Int
    /// Per leak position: the strong references leaving it (as the target's position and the reference's
    /// index in `report.references`), in report order.
    let strongOut: [[(target: Int, reference: Int)]]
    /// Per leak position of collection storage with exactly one strong reference from a leaked object:
    /// that reference's index (``storageOwnerText(_:)`` names elements from it).
    let storageHolder: [Int: Int]
    var lines: [String] = []

    var report: LeakReport { index.report }
    var position: [Int: Int] { index.position }

    init(report: LeakReport, pathLimit: Int) {
        let index = ReportIndex(report)
        self.index = index
        self.pathLimit = pathLimit
        self.strongOut = index.outgoing.map { references in
            references.compactMap { reference in
                let target = report.references[reference]
                guard target.ownership == .strong, let to = index.position[target.to] else { return nil }
                return (to, reference)
            }
        }
        let storageKinds: Set<String> = [
            ObjectKind.arrayStorage.rawValue, ObjectKind.dictionaryStorage.rawValue, ObjectKind.setStorage.rawValue,
        ]
        var incoming: [Int: [Int]] = [:]
        for (from, references) in strongOut.enumerated() {
            for (to, reference) in references where from != to && storageKinds.contains(report.leaks[to].kind) {
                incoming[to, default: []].append(reference)
            }
        }
        self.storageHolder = incoming.compactMapValues { $0.count == 1 ? $0[0] : nil }
    }

    /// The text after the header: each section starts with an empty line; ends with a newline.
    mutating func renderBody(options: TextReport.Options = TextReport.Options()) -> String {
        let suppressed = report.cycles.indices.filter { report.cycles[$0].suppressed != nil }
        if !suppressed.isEmpty {
            lines.append("")
            lines.append(baselineVerdict(suppressed: suppressed.count))
        }
        if options.expand {
            for (ordinal, cycle) in report.cycles.enumerated() where cycle.suppressed == nil {
                lines.append("")
                renderCycle(cycle, ordinal: ordinal)
            }
        } else {
            let families = report.families
            for family in families where family.standing == .own {
                lines.append("")
                renderFamily(family)
            }
            let library = families.filter { $0.standing == .knownLibraryLeak }
            if !library.isEmpty {
                lines.append("")
                renderKnownLibraryLeaks(library)
            }
        }
        if !suppressed.isEmpty {
            lines.append("")
            renderSuppressed(suppressed)
        }
        let unlisted = index.unlistedPositions
        if !unlisted.isEmpty {
            lines.append("")
            let bytes = unlisted.reduce(0) { $0 + report.leaks[$1].size }
            lines.append(
                "OTHER LEAKED OBJECTS: \(ReportNaming.count(unlisted.count, "object")), \(ReportNaming.count(bytes, "byte"))"
            )
            lines.append("   " + typeGroups(unlisted))
        }
        if report.leaks.isEmpty {
            lines.append("")
            lines.append("No leaks found.")
        }
        for query in report.why ?? [] {
            lines.append("")
            lines.append(contentsOf: RetainerText.lines(of: query))
        }
        renderDiagnostics(verbose: options.verbose)
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    // MARK: Cycles

    /// The lines of the cycle at `ordinal` in `report.cycles`, joined by line feeds; `lines` is left empty.
    mutating func cycleSection(_ ordinal: Int) -> String {
        lines = []
        renderCycle(report.cycles[ordinal], ordinal: ordinal)
        let text = lines.joined(separator: "\n")
        lines = []
        return text
    }

    /// The lines of `family` (``renderFamily(_:)``), joined by line feeds; `lines` is left empty.
    mutating func familySection(_ family: LeakReport.Family) -> String {
        lines = []
        renderFamily(family)
        let text = lines.joined(separator: "\n")
        lines = []
        return text
    }

    /// Appends the `ROOT CYCLE #n` line (`n` is `ordinal + 1`), the leak trace, the members' tree and the
    /// `holds` line of `cycle`.
    mutating func renderCycle(_ cycle: LeakReport.Cycle, ordinal: Int, family: LeakReport.Family? = nil) {
        let members = cycle.members.compactMap { position[$0] }
        let held = cycle.holds.compactMap { position[$0] }
        let memberBytes = members.reduce(0) { $0 + report.leaks[$1].size }
        let title = "\(ReportNaming.count(members.count, "object")), \(ReportNaming.count(memberBytes, "byte"))"
        if let family, family.cycles.count > 1 {
            lines.append("ROOT CYCLE #\(ordinal + 1) \(familyTitle(family, members: title))")
            if let found = ReportNaming.foundIn(family.cycles.map { report.cycles[$0] }) {
                lines.append("   " + found)
            }
        } else {
            lines.append("ROOT CYCLE #\(ordinal + 1): \(title)")
            if let found = ReportNaming.foundIn(cycle) {
                lines.append("   " + found)
            }
        }
        if let library = cycle.knownLibraryLeak {
            lines.append("   Not your code — \(library)")
        }
        if cycle.isOrphan, let member = members.first {
            lines.append("   Orphan: \(ReportNaming.orphanText(report.leaks[member]))")
        }
        if let holder = cycle.heldByKnownLibraryLeak {
            let number = report.cycles.firstIndex { $0.id == holder }.map { " (root cycle #\($0 + 1))" } ?? ""
            lines.append(
                "   Held by a known library leak\(number): your code's cycle, leaked once its holder is released")
        }
        renderTrace(cycle, members: members)
        renderTree(members, suspect: suspectEdge(of: cycle))
        if !held.isEmpty {
            let heldBytes = held.reduce(0) { $0 + report.leaks[$1].size }
            let heldText = "\(ReportNaming.count(held.count, "object")), \(ReportNaming.count(heldBytes, "byte"))"
            lines.append("   holds \(heldText): \(typeGroups(held))")
        }
    }

    /// One frame of the depth-first walk: an object drawn, its next reference, and where its references go.
    private struct Frame {
        var node: Int
        var nextEdge: Int
        var indent: Int
    }

    /// Draws the members as depth-first trees over their strong references, iteratively; the line drawing
    /// the `suspect` reference ends with `  ← suspect`.
    mutating func renderTree(_ members: [Int], suspect: SuspectEdge? = nil) {
        var suspect = suspect
        var isMember: Set<Int> = []
        isMember.reserveCapacity(members.count)
        for member in members { isMember.insert(member) }
        var drawn: Set<Int> = []
        var budget = pathLimit
        var stoppedEarly = false

        treeLoop: for start in members where !drawn.contains(start) {
            guard budget > 0 else { stoppedEarly = true; break }
            budget -= 1
            drawn.insert(start)
            lines.append("   " + objectText(start))
            var stack = [Frame(node: start, nextEdge: 0, indent: 5)]
            while let top = stack.last {
                let edges = strongOut[top.node]
                var edge = top.nextEdge
                while edge < edges.count, !isMember.contains(edges[edge].target) { edge += 1 }
                guard edge < edges.count else {
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].nextEdge = edge + 1
                guard budget > 0 else { stoppedEarly = true; break treeLoop }
                budget -= 1
                let (target, reference) = edges[edge]
                let label = report.references[reference].label
                let pad = String(repeating: " ", count: top.indent)
                var marker = ""
                if let edge = suspect, edge.reference == reference {
                    marker = TextRenderer.suspectMarker
                    suspect = nil
                }
                if drawn.contains(target) {
                    let note = target == start ? "(back to the start)" : "(shown above)"
                    let address = report.leaks[target].address
                    lines.append("\(pad)—\(label)→ ↺ \(typeText(target)) (\(address))   \(note)\(marker)")
                } else {
                    drawn.insert(target)
                    lines.append("\(pad)—\(label)→ \(objectText(target))\(marker)")
                    let siblings = memberEdgeCount(top.node, isMember) > 1
                    let ownEdges = memberEdgeCount(target, isMember)
                    let childIndent = siblings || ownEdges > 1 ? top.indent + 2 : top.indent
                    stack.append(Frame(node: target, nextEdge: 0, indent: childIndent))
                }
            }
        }
        if stoppedEarly {
            let remaining = members.count - drawn.count
            lines.append(
                remaining > 0
                    ? "     … \(ReportNaming.grouped(remaining)) more \(remaining == 1 ? "object" : "objects") in this cycle"
                    : "     … more references among these objects"
            )
        }
    }

    /// The number of strong references from `node` to members of the cycle being drawn.
    func memberEdgeCount(_ node: Int, _ isMember: Set<Int>) -> Int {
        var result = 0
        for edge in strongOut[node] where isMember.contains(edge.target) { result += 1 }
        return result
    }

    // MARK: Objects and types

    func typeText(_ position: Int) -> String {
        index.typeName(position)
    }

    /// `Type (0x…, 32 bytes)  created at file.swift:12 in function`.
    func objectText(_ index: Int) -> String {
        let leak = report.leaks[index]
        var text = "\(typeText(index)) (\(leak.address), \(ReportNaming.count(leak.size, "byte")))"
        if let site = ReportNaming.creationSite(of: leak) {
            text += site.place == nil ? "  created in \(site.function)" : "  created at \(site.text)"
        }
        return text
    }

    /// `Payload × 3 (96 bytes), Box × 1 (32 bytes)`: in ``ReportNaming/typeGroups(_:)`` order, at most
    /// ``TextReport/heldTypeLimit`` types.
    func typeGroups(_ indices: [Int]) -> String {
        let groups = ReportNaming.typeGroups(indices.lazy.map { (name: typeText($0), size: report.leaks[$0].size) })
        var parts = groups.prefix(TextReport.heldTypeLimit).map {
            "\($0.type) × \(ReportNaming.grouped($0.count)) (\(ReportNaming.count($0.bytes, "byte")))"
        }
        if groups.count > TextReport.heldTypeLimit {
            parts.append("… and \(groups.count - TextReport.heldTypeLimit) more types")
        }
        return parts.joined(separator: ", ")
    }
}
