import LeakGraphModel
import LeakGraphReport

extension HeapSnapshot {
    /// A leak report as a snapshot of its leaked objects: each leak an object (marked leaked, and
    /// orphaned when its root group is an orphan), the references between them with their paths, the
    /// backtraces as stacks (the frame the creation site names marked as the program's; a report does
    /// not say whose the others are). A report names no roots: nothing alive is in it.
    public init(report: LeakReport) {
        var objectOfLeak: [Int: Int] = [:]
        let order = report.leaks.indices.sorted {
            (Self.address(report.leaks[$0].address), $0) < (Self.address(report.leaks[$1].address), $1)
        }
        for (object, leak) in order.enumerated() { objectOfLeak[report.leaks[leak].id] = object }
        var orphanLeaks = Set<Int>()
        for cycle in report.cycles where cycle.isOrphan { orphanLeaks.formUnion(cycle.members) }

        var snapshot = HeapSnapshot(
            info: Info(
                origin: .leakReport, programPath: report.program.path, arguments: report.program.arguments,
                trackedObjects: report.summary.trackedObjects),
            diagnostics: report.diagnostics)
        var typeIndex: [TypeInfo: Int] = [:]
        var frameIndex: [Frame: Int] = [:]
        var stackIndex: [[LeakReport.Frame]: Int] = [:]
        for leakPosition in order {
            let leak = report.leaks[leakPosition]
            let type = TypeInfo(name: leak.type, kind: ObjectKind(rawValue: leak.kind) ?? .other)
            let typeID =
                typeIndex[type]
                ?? {
                    snapshot.types.append(type)
                    typeIndex[type] = snapshot.types.count - 1
                    return snapshot.types.count - 1
                }()
            var stack: Int?
            if !leak.backtrace.isEmpty {
                if let known = stackIndex[leak.backtrace] {
                    stack = known
                } else {
                    let site = ReportNaming.creationSite(leak.backtrace)
                    var ids: [Int] = []
                    var marked = false
                    for frame in leak.backtrace {
                        let place = frame.file.map { ReportNaming.place(file: $0, line: frame.line) }
                        let isSite =
                            !marked && site?.function == frame.function && (site?.place == nil || site?.place == place)
                        marked = marked || isSite
                        let entry = Frame(
                            function: frame.function, file: frame.file, line: frame.line,
                            category: isSite ? .program : .unknown)
                        let id =
                            frameIndex[entry]
                            ?? {
                                snapshot.frames.append(entry)
                                frameIndex[entry] = snapshot.frames.count - 1
                                return snapshot.frames.count - 1
                            }()
                        ids.append(id)
                    }
                    snapshot.stacks.append(ids)
                    stack = snapshot.stacks.count - 1
                    stackIndex[leak.backtrace] = stack
                }
            }
            var flags: Objects.Flags = .leaked
            if orphanLeaks.contains(leak.id) { flags.insert(.orphan) }
            snapshot.objects.append(
                address: Self.address(leak.address), type: typeID, size: leak.size, retainCount: leak.retainCount,
                stack: stack,
                flags: flags)
        }

        var paths = SnapshotPathTable()
        var bySource = [[(to: Int, path: Int, element: Int?)]](repeating: [], count: snapshot.objects.count)
        for reference in report.references {
            guard let from = objectOfLeak[reference.from], let to = objectOfLeak[reference.to] else { continue }
            let interned = paths.intern(reference.path, ownership: reference.ownership)
            bySource[from].append((to, interned.path, interned.element))
        }
        for references in bySource {
            for reference in references {
                snapshot.references.append(target: reference.to, path: reference.path, element: reference.element)
            }
            snapshot.references.endObject()
        }
        snapshot.paths = paths.paths
        self = snapshot
    }

    /// `0x7f…` as a number (0 when it is not one).
    private static func address(_ text: String) -> UInt64 {
        UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) ?? 0
    }
}
