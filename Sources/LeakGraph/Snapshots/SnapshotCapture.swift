#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording
import LeakGraphReport
import LeakGraphSymbolication

/// A heap snapshot in two halves: ``take(_:holders:)`` reads what only the frozen heap can give (every
/// object and reference, the roots and the words the holder scan found for them), and ``finish(program:executablePath:)``
/// does the rest after the freeze — symbolizing the creation stacks and naming the roots' holders.
struct SnapshotCapture {
    /// The walk's tables; the objects' `stack` column still holds the recorder's stack ids.
    var snapshot: HeapSnapshot
    /// The holder scan's answer per root of ``snapshot``: the first untracked word pointing into it
    /// (0 for none), or the type of the tracked object whose unread field does.
    var holderWords: [(address: UInt, unreadFieldType: String?)]
    /// Whether the holder scan ran and answered.
    var scanned: Bool
    /// Objects the recorder was tracking.
    var trackedObjects: Int

    /// Reads the snapshot's tables from a frozen walk. With `holders`, first runs the holder scan for
    /// the roots (it stops the other threads for a moment): before any copy of the objects' addresses
    /// exists, which the scan would take for holders. `progress` is told how far the reading of the
    /// objects' references is (step `snapshot`).
    static func take(_ frozen: FrozenWalk, holders: Bool, progress: LeakCheckProgress? = nil) -> SnapshotCapture {
        let scan = frozen.scan
        let graph = scan.strongGraph
        let (roots, _) = LeakAnalysis.rootsAndReach(of: graph, orphans: frozen.orphans)
        var inDegree = [UInt32](repeating: 0, count: graph.nodeCount)
        for target in graph.targets { inDegree[Int(target)] += 1 }
        let unexplained = roots.map { Int(graph.retainCounts[$0]) - Int(inDegree[$0]) }
        inDegree = []

        var words = [(address: UInt, unreadFieldType: String?)](repeating: (0, nil), count: roots.count)
        var scanned = false
        let candidates = roots.indices.filter { unexplained[$0] > 0 }
        if holders, !candidates.isEmpty {
            let objects = frozen.objects
            let result = HolderScan.scan(
                count: candidates.count,
                candidate: { index in
                    let address = objects[scan.recordPosition(ofNode: roots[candidates[index]])]
                    let size = UInt(Recorder.frozenRecord(at: address)?.size ?? 16)
                    return address..<address + max(size, 16)
                },
                objects: objects)
            if let result {
                scanned = true
                var firstTracked: [Int: UInt] = [:]
                for hit in result.trackedHolders where firstTracked[hit.candidate] == nil {
                    firstTracked[hit.candidate] = hit.holder
                }
                for (candidate, root) in candidates.enumerated() {
                    let untracked = result.firstUntrackedHolder[candidate]
                    if untracked != 0 {
                        words[root] = (untracked, nil)
                    } else if let holder = firstTracked[candidate],
                        let node = scan.node(at: holder, address: { objects[$0] })
                    {
                        words[root] = (0, scan.typeName(ofNode: node))
                    }
                }
            }
        }

        progress?("snapshot", 0, scan.liveObjects)
        var snapshot = frozen.walker.snapshotTables(
            of: scan, address: { frozen.objects[$0] }, record: frozen.record,
            progress: progress.map { report in { report("snapshot", $0, $1) } })
        for node in frozen.leaked { snapshot.objects.flags[node].insert(.leaked) }
        for node in frozen.orphans { snapshot.objects.flags[node].insert(.orphan) }
        snapshot.roots = zip(roots, unexplained).map { HeapSnapshot.Root(object: $0, unexplainedRetains: max($1, 0)) }
        return SnapshotCapture(
            snapshot: snapshot, holderWords: words, scanned: scanned, trackedObjects: scan.trackedObjects)
    }

    /// The finished snapshot: creation stacks symbolized (user frames marked, the allocation machinery
    /// left out), the roots' holders named, each type's ``HeapSnapshot/TypeInfo/isProgram`` decided,
    /// and the program, time and version filled in.
    func finish(program: LeakReport.Program, executablePath: String?, date: Date = Date()) -> HeapSnapshot {
        var snapshot = self.snapshot
        snapshot.info = HeapSnapshot.Info(
            origin: .heap, programPath: program.path, arguments: program.arguments, processID: Int(getpid()),
            time: date.timeIntervalSince1970, trackedObjects: trackedObjects)
        let stackHasProgramFrame = Self.symbolizeStacks(of: &snapshot, executablePath: executablePath)
        // A type is the program's when its module is not the toolchain's; without a module (closure
        // contexts, boxes), when one of its objects was made by the program's own code.
        var madeByProgram = [Bool](repeating: false, count: snapshot.types.count)
        for object in 0..<snapshot.objects.count {
            let stack = snapshot.objects.stack[object]
            if stack >= 0, stackHasProgramFrame[Int(stack)] { madeByProgram[Int(snapshot.objects.type[object])] = true }
        }
        for index in snapshot.types.indices {
            if let module = snapshot.types[index].module {
                snapshot.types[index].isProgram = !FramePolicy.isToolchainModule(module)
            } else {
                snapshot.types[index].isProgram = madeByProgram[index] && snapshot.types[index].kind != .other
            }
        }
        if scanned {
            let naming = RetainerHolderNaming()
            for (index, word) in holderWords.enumerated() {
                if let type = word.unreadFieldType {
                    snapshot.roots[index].holder = RootHolder(kind: .unreadField, name: type)
                } else if word.address != 0 {
                    snapshot.roots[index].holder = naming.holder(at: word.address)
                }
            }
        }
        return snapshot
    }

    /// Replaces the recorder's stack ids by the snapshot's own stacks, symbolized once per distinct
    /// stack (addresses are symbolized once each); returns per stack whether it holds a frame of the
    /// program's own code.
    private static func symbolizeStacks(of snapshot: inout HeapSnapshot, executablePath: String?) -> [Bool] {
        var dense: [Int32: Int32] = [:]
        var rawStacks: [Int32] = []
        for raw in snapshot.objects.stack where raw >= 0 && dense[raw] == nil {
            dense[raw] = Int32(rawStacks.count)
            rawStacks.append(raw)
        }
        guard !rawStacks.isEmpty else { return [] }
        let executable =
            executablePath ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let symbolizer = try? Symbolizer()
        var frameIndex: [HeapSnapshot.Frame: Int] = [:]
        var frames: [HeapSnapshot.Frame] = []
        var stacks = [[Int]](repeating: [], count: rawStacks.count)
        var hasProgramFrame = [Bool](repeating: false, count: rawStacks.count)
        for (id, raw) in rawStacks.enumerated() {
            let addresses = Recorder.stack(UInt32(raw))
            let symbolized = symbolizer?.symbolizeExpandingInlines(addresses) ?? addresses.map(SymbolizedFrame.unknown)
            var stackFrames = symbolized.map { frame -> HeapSnapshot.Frame in
                let category: HeapSnapshot.Frame.Category =
                    switch FramePolicy.category(of: frame, executablePath: executable) {
                    case .user: .program
                    case .library: .library
                    case .runtime: .runtime
                    }
                return HeapSnapshot.Frame(
                    function: frame.function, file: frame.file, line: frame.line, module: frame.module,
                    category: category)
            }
            // The allocation machinery (the hook, swift_allocObject) is left out, unless it is all there is.
            if stackFrames.contains(where: { $0.category != .runtime }) {
                stackFrames.removeAll { $0.category == .runtime }
            }
            hasProgramFrame[id] = stackFrames.contains { $0.category == .program }
            stacks[id] = stackFrames.map { frame in
                if let known = frameIndex[frame] { return known }
                frameIndex[frame] = frames.count
                frames.append(frame)
                return frames.count - 1
            }
        }
        snapshot.frames = frames
        snapshot.stacks = stacks
        for index in snapshot.objects.stack.indices where snapshot.objects.stack[index] >= 0 {
            snapshot.objects.stack[index] = dense[snapshot.objects.stack[index]]!
        }
        // Diagnostics name where one of their objects was made, as leak reports do.
        for index in snapshot.diagnostics.indices {
            guard let raw = snapshot.diagnostics[index].stackID, let id = dense[Int32(clamping: raw)] else { continue }
            snapshot.diagnostics[index].site = snapshot.creationSite(ofStack: Int(id))?.text
            snapshot.diagnostics[index].stackID = nil
        }
        return hasProgramFrame
    }
}
