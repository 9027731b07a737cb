import ArgumentParser
import Foundation
import LeakGraphAnalysis
import LeakGraphModel
import LeakGraphRender
import LeakGraphReport

extension Leakgraph {
    /// `leakgraph snapshot FILE [--by type|site] [--top N] [--json] [--why TYPE|0xADDRESS…] [--compare OLD]`:
    /// what a heap snapshot holds, as `heap` and MAT's histogram print it.
    struct Snapshot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Show what a heap snapshot holds: types by retained size, the biggest dominators, accumulation points.",
            usage: """
                leakgraph snapshot <file> [--by type|site] [--top <n>] [--json]
                leakgraph snapshot <file> --why <type>|<0xaddress> [--why …]
                leakgraph snapshot <new> --compare <old> [--by type|site] [--top <n>] [--json]
                """,
            discussion: """
                FILE is a snapshot (`leakgraph run --snapshot FILE`, `LeakChecker.snapshot()`) or a JSON \
                leak report, which opens as a snapshot of its leaked objects. Shallow bytes are the \
                objects' own sizes; retained bytes what freeing them would free (their dominator tree), \
                each object nested in another of its group counted once (docs/snapshots.md).

                --why prints the shortest chain of strong references from a root to each object of the \
                type (at most 10), or to the object at the address, and what holds the root. --compare \
                prints what changed since OLD, by type or creation site: count and bytes, new, grown, \
                shrunk and gone; objects in both are matched by address, type and creation stack.

                Exit status: 0, or 2 when a file cannot be read (missing, truncated, damaged, written \
                by a newer LeakGraph) or an address is not in the snapshot.
                """
        )

        /// The snapshot.
        @Argument(help: ArgumentHelp("The snapshot, or a JSON leak report.", valueName: "file"))
        var path: String

        /// How objects are grouped.
        @Option(
            name: .customLong("by"),
            help: ArgumentHelp("Group objects by type (default) or by creation site.", valueName: "type|site"))
        var grouping: HeapSnapshot.Grouping = .type

        /// How many rows each table shows.
        @Option(name: .customLong("top"), help: ArgumentHelp("Rows per table (default 20).", valueName: "n"))
        var top = 20

        /// JSON instead of text.
        @Flag(name: .customLong("json"), help: "Print the summary (or the comparison) as JSON on standard output.")
        var json = false

        /// Types or addresses whose retainer chains to print.
        @Option(
            name: .customLong("why"),
            help: ArgumentHelp(
                "Why the objects of TYPE (or the object at 0xADDRESS) are alive (repeatable).",
                valueName: "type|0xaddress"))
        var why: [String] = []

        /// The older snapshot to compare with.
        @Option(
            name: .customLong("compare"),
            help: ArgumentHelp("Compare with an older snapshot of the program.", valueName: "old"))
        var comparePath: String?

        func validate() throws {
            guard top > 0 else { throw ValidationError("--top takes a positive number of rows, not \(top)") }
            guard why.isEmpty || comparePath == nil else {
                throw ValidationError("--why and --compare cannot be combined")
            }
            guard why.isEmpty || !json else { throw ValidationError("--why prints text; leave out --json") }
        }

        func run() throws {
            let (snapshot, analysis) = try SnapshotLoading.load(path)
            let output: String
            if !why.isEmpty {
                output = try why.map { try Self.whyText($0, snapshot: snapshot) }.joined(separator: "\n")
            } else if let comparePath {
                let (old, oldAnalysis) = try SnapshotLoading.load(comparePath)
                let comparison = SnapshotComparison(
                    old: old, new: snapshot, oldKeys: old.groupNames(by: grouping),
                    newKeys: snapshot.groupNames(by: grouping))
                if json {
                    output = try Self.json(SnapshotComparisonJSON(comparison, grouping: grouping, top: top))
                } else {
                    output = SnapshotText.render(
                        comparison, old: SnapshotSummary(snapshot: old, analysis: oldAnalysis, top: 0),
                        new: SnapshotSummary(snapshot: snapshot, analysis: analysis, top: 0), grouping: grouping,
                        top: top)
                }
            } else {
                let summary = SnapshotSummary(snapshot: snapshot, analysis: analysis, by: grouping, top: top)
                output = json ? try Self.json(summary) : SnapshotText.render(summary)
            }
            FileHandle.standardOutput.write(Data(output.utf8))
        }

        /// The retainer chains of a type, or of the object at an address.
        static func whyText(_ asked: String, snapshot: HeapSnapshot) throws(ToolError) -> String {
            if asked.hasPrefix("0x") {
                guard let address = UInt64(asked.dropFirst(2), radix: 16), let object = snapshot.object(at: address)
                else {
                    throw ToolError("no object starts at \(asked) in the snapshot")
                }
                let query = snapshot.retainers(
                    of: [object], asked: "\(ReportNaming.shortName(snapshot.type(of: object).name)) (\(asked))")
                return RetainerText.lines(of: query).joined(separator: "\n") + "\n"
            }
            return RetainerText.lines(of: snapshot.retainers(ofType: asked)).joined(separator: "\n") + "\n"
        }

        static func json(_ value: some Encodable) throws(ToolError) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            do {
                return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
            } catch {
                throw ToolError("cannot encode the summary: \(error)")
            }
        }
    }
}

extension HeapSnapshot.Grouping: ExpressibleByArgument {}

/// The JSON form of `leakgraph snapshot NEW --compare OLD --json`.
struct SnapshotComparisonJSON: Encodable {
    struct Row: Encodable {
        var key: String
        var change: String
        var oldCount: Int
        var newCount: Int
        var oldBytes: UInt64
        var newBytes: UInt64
        var newObjects: Int
    }

    var groupedBy: String
    var keptObjects: Int
    var addedObjects: Int
    var removedObjects: Int
    var rows: [Row]

    init(_ comparison: SnapshotComparison, grouping: HeapSnapshot.Grouping, top: Int) {
        groupedBy = grouping.rawValue
        keptObjects = comparison.keptObjects
        addedObjects = comparison.addedObjects
        removedObjects = comparison.removedObjects
        rows = comparison.rows.filter { $0.change != .unchanged }.prefix(top).map {
            Row(
                key: $0.key, change: $0.change.rawValue, oldCount: $0.oldCount, newCount: $0.newCount,
                oldBytes: $0.oldBytes,
                newBytes: $0.newBytes, newObjects: $0.added)
        }
    }
}
