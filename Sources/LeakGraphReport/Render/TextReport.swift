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
/// - **Creation site**: the first backtrace frame (the user's own frames come first) with a source file and a
///   line that is not compiler-generated — a class's `__allocating_init` or a thunk, which only allocate or
///   forward, so the line that called them is shown instead; else the first frame with a file, else the
///   first frame: `created at file.swift:12 in function` (file name without its directory). The same rule as
///   `FramePolicy.creationSite` in LeakGraphSymbolication, on report frames.
/// - **Held objects**: `holds N objects, B bytes:` then the types, largest byte total first, as
///   `Type × count (bytes)`; at most ten types, then `… and N more types`.
/// - **Type names** drop their leading module (`LinkedRing.DummyObject` → `DummyObject`) unless two leaked
///   types would then read the same; such types keep their full names everywhere.
/// - Leaked objects in no listed cycle (never produced by the builder) are listed by type under
///   `OTHER LEAKED OBJECTS`; walk diagnostics close the text. With no leaks the text says
///   `No leaks found.`
public enum TextReport {
    /// The default number of lines drawn per root cycle.
    public static let defaultPathLimit = 20

    /// The maximum number of types listed in a `holds` line.
    static let heldTypeLimit = 10

    /// Renders `report` as text (ending with a newline).
    ///
    /// - Parameters:
    ///   - report: The report.
    ///   - pathLimit: The maximum number of object and `↺` lines drawn per root cycle (at least 1).
    /// - Complexity: O(*n* + *e*) for *n* leaks and *e* references (plus sorting the type groups).
    public static func render(_ report: LeakReport, pathLimit: Int = defaultPathLimit) -> String {
        var renderer = TextRenderer(report: report, pathLimit: max(1, pathLimit))
        return renderer.render()
    }
}

/// The state of one rendering: indexes built from the report and the output so far.
struct TextRenderer {
    let report: LeakReport
    let pathLimit: Int
    /// Leak id → position in `report.leaks`.
    let position: [Int: Int]
    /// Per leak position: the strong references leaving it (as `(target position, label)`), in report order.
    let strongOut: [[(target: Int, label: String)]]
    /// Full type name → the name shown.
    let displayName: [String: String]
    var lines: [String] = []

    init(report: LeakReport, pathLimit: Int) {
        self.report = report
        self.pathLimit = pathLimit
        var position: [Int: Int] = [:]
        position.reserveCapacity(report.leaks.count)
        for (index, leak) in report.leaks.enumerated() where position[leak.id] == nil {
            position[leak.id] = index
        }
        var strongOut = [[(target: Int, label: String)]](repeating: [], count: report.leaks.count)
        for reference in report.references where reference.ownership == .strong {
            if let from = position[reference.from], let to = position[reference.to] {
                strongOut[from].append((to, reference.label))
            }
        }
        self.position = position
        self.strongOut = strongOut
        self.displayName = Self.displayNames(for: report.leaks.map(\.type))
    }

    mutating func render() -> String {
        renderHeader()
        var listed = [Bool](repeating: false, count: report.leaks.count)
        for (ordinal, cycle) in report.cycles.enumerated() {
            lines.append("")
            renderCycle(cycle, ordinal: ordinal, listed: &listed)
        }
        let unlisted = report.leaks.indices.filter { !listed[$0] }
        if !unlisted.isEmpty {
            lines.append("")
            let bytes = unlisted.reduce(0) { $0 + report.leaks[$1].size }
            lines.append("OTHER LEAKED OBJECTS: \(count(unlisted.count, "object")), \(count(bytes, "byte"))")
            lines.append("   " + typeGroups(unlisted))
        }
        if report.leaks.isEmpty {
            lines.append("")
            lines.append("No leaks found.")
        }
        if !report.diagnostics.isEmpty {
            lines.append("")
            lines.append(
                "Not read exactly (what these reference counts as held from outside, so a leak there can be missed):"
            )
            for diagnostic in report.diagnostics {
                lines.append("   \(diagnostic.typeName): \(diagnostic.reason) (\(count(diagnostic.objectCount, "object")))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Header

    mutating func renderHeader() {
        let path = report.program.path
        let name = path.split(separator: "/").last.map(String.init) ?? (path.isEmpty ? "?" : path)
        let summary = report.summary
        let leaks = count(summary.leakedObjects, "leak")
        lines.append("Process \(name): \(leaks) for \(grouped(summary.leakedBytes)) total leaked bytes.")
        let tracked = count(summary.trackedObjects, "object")
        let cycles = count(summary.rootCycles, "root cycle")
        lines.append("Process \(name): \(tracked) tracked, \(grouped(summary.liveObjects)) live, \(cycles).")
        let command = ([path] + report.program.arguments.map(Self.shellQuoted)).joined(separator: " ")
        lines.append("Command: \(command)   (exit status \(report.program.exitStatus))")
    }

    // MARK: Cycles

    mutating func renderCycle(_ cycle: LeakReport.Cycle, ordinal: Int, listed: inout [Bool]) {
        let members = cycle.members.compactMap { position[$0] }
        let held = cycle.holds.compactMap { position[$0] }
        for index in members + held { listed[index] = true }
        let memberBytes = members.reduce(0) { $0 + report.leaks[$1].size }
        let title = "\(count(members.count, "object")), \(count(memberBytes, "byte"))"
        lines.append("ROOT CYCLE #\(ordinal + 1): \(title)")
        renderTrace(cycle, members: members)
        renderTree(members, suspect: suspectEdge(of: cycle))
        if !held.isEmpty {
            let heldBytes = held.reduce(0) { $0 + report.leaks[$1].size }
            lines.append("   holds \(count(held.count, "object")), \(count(heldBytes, "byte")): \(typeGroups(held))")
        }
    }

    /// One frame of the depth-first walk: an object drawn, its next reference, and where its references go.
    private struct Frame {
        var node: Int
        var nextEdge: Int
        var indent: Int
    }

    /// Draws the members as depth-first trees over their strong references, iteratively; the first line
    /// drawing the `suspect` reference (positions and label) ends with `  ← suspect`.
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
                let (target, label) = edges[edge]
                let pad = String(repeating: " ", count: top.indent)
                var marker = ""
                if let edge = suspect, edge.from == top.node, edge.to == target, edge.label == label {
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
                    ? "     … \(grouped(remaining)) more \(remaining == 1 ? "object" : "objects") in this cycle"
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

    func typeText(_ index: Int) -> String {
        let type = report.leaks[index].type
        return displayName[type] ?? type
    }

    /// `Type (0x…, 32 bytes)  created at file.swift:12 in function`.
    func objectText(_ index: Int) -> String {
        let leak = report.leaks[index]
        var text = "\(typeText(index)) (\(leak.address), \(count(leak.size, "byte")))"
        if let site = Self.creationSite(leak.backtrace) {
            text += "  created " + site
        }
        return text
    }

    /// `at main.swift:12 in makeRing()` from the first frame with a file and a line that is not
    /// compiler-generated, else the first frame with a file, else the first frame.
    static func creationSite(_ backtrace: [LeakReport.Frame]) -> String? {
        let placed = backtrace.first { $0.file != nil && $0.line != nil && !Self.isCompilerGenerated($0.function) }
        guard let frame = placed ?? backtrace.first(where: { $0.file != nil }) ?? backtrace.first else {
            return nil
        }
        guard let file = frame.file else { return "in \(frame.function)" }
        let fileName = file.split(separator: "/").last.map(String.init) ?? file
        let place = frame.line.map { "\(fileName):\($0)" } ?? fileName
        return "at \(place) in \(frame.function)"
    }

    /// Whether a demangled function name is a class's allocating initializer or a thunk (as
    /// `FramePolicy.isCompilerGenerated` judges symbolized frames).
    static func isCompilerGenerated(_ function: String) -> Bool {
        function.contains("__allocating_init") || compilerGeneratedPrefixes.contains { function.hasPrefix($0) }
    }

    private static let compilerGeneratedPrefixes = [
        "reabstraction thunk", "thunk for ", "dispatch thunk of ", "vtable thunk for ", "protocol witness for ",
        "partial apply forwarder for ", "@objc ", "@nonobjc ", "autoclosure thunk",
    ]

    /// `Payload × 3 (96 bytes), Box × 1 (32 bytes)`: largest byte total first, then count, then name.
    func typeGroups(_ indices: [Int]) -> String {
        var groups: [String: (count: Int, bytes: Int)] = [:]
        for index in indices {
            let name = typeText(index)
            groups[name, default: (0, 0)].count += 1
            groups[name, default: (0, 0)].bytes += report.leaks[index].size
        }
        let sorted = groups.sorted { a, b in
            if a.value.bytes != b.value.bytes { return a.value.bytes > b.value.bytes }
            if a.value.count != b.value.count { return a.value.count > b.value.count }
            return a.key < b.key
        }
        var parts = sorted.prefix(TextReport.heldTypeLimit).map {
            "\($0.key) × \(grouped($0.value.count)) (\(count($0.value.bytes, "byte")))"
        }
        if sorted.count > TextReport.heldTypeLimit {
            parts.append("… and \(sorted.count - TextReport.heldTypeLimit) more types")
        }
        return parts.joined(separator: ", ")
    }

    /// Full type name → shown name: without the leading module when no other leaked type reads the same.
    static func displayNames(for types: [String]) -> [String: String] {
        var byShort: [String: Set<String>] = [:]
        for type in Set(types) {
            byShort[shortName(type), default: []].insert(type)
        }
        var result: [String: String] = [:]
        for (short, fulls) in byShort {
            for full in fulls {
                result[full] = fulls.count == 1 ? short : full
            }
        }
        return result
    }

    /// `MyApp.Node<Swift.Int>` → `Node<Swift.Int>`: drops a leading identifier and dot that come before
    /// any generic argument list or other punctuation. Other names are returned unchanged.
    static func shortName(_ type: String) -> String {
        guard let dot = type.firstIndex(of: ".") else { return type }
        let module = type[..<dot]
        let isIdentifier = !module.isEmpty && module.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            && !(module.first?.isNumber ?? true)
        let rest = type[type.index(after: dot)...]
        return isIdentifier && !rest.isEmpty ? String(rest) : type
    }

    // MARK: Numbers and words

    /// `12,345`.
    func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// `1 leak`, `12 leaks`, `1,024 bytes`.
    func count(_ value: Int, _ noun: String) -> String {
        "\(grouped(value)) \(noun)\(value == 1 ? "" : "s")"
    }

    /// `arg` unchanged when it is plain; otherwise in single quotes.
    static func shellQuoted(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.allSatisfy {
            $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)
        }
        return plain ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
