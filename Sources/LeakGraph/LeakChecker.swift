import CLeakGraphContract
import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording
import LeakGraphReport
import LeakGraphSymbolication

#if canImport(Glibc)
    import Glibc
#endif

/// One call from recorded allocations to a leak report: freeze the heap, walk it, analyse the graph,
/// symbolize the creation stacks of what leaked, and build the report value.
///
/// The recorder must have been started (``startRecording(maxFrames:)``) before the objects of
/// interest were allocated: objects allocated earlier are not tracked, and references from them only
/// make their targets look externally held.
public enum LeakChecker {
    /// Installs the allocation hook. Idempotent.
    ///
    /// The recorder learns of every object's death from `free()`. Under `leakgraph run` the
    /// preloaded library interposes `free` for the whole process. In-process, this call first points
    /// the `free` imports of every module loaded now (the Swift runtime, Foundation and
    /// CoreFoundation, Dispatch, the program itself, …) at the recorder, so that frees behind the
    /// runtime's back (CoreFoundation's temporary URL objects, a failed throwing initializer's
    /// existential box) are seen too and no record ever names freed memory.
    ///
    /// - Important: Modules loaded with `dlopen` after this call, and code that calls a `free` it
    ///   found with `dlsym`, are not covered: start recording after loading plugins, or run under
    ///   `leakgraph run` (docs/how-it-works.md).
    ///
    /// - Parameter maxFrames: return addresses recorded per allocation (0 records no stacks).
    /// - Throws: `RecorderError` when the hook cannot be installed safely on this runtime.
    public static func startRecording(maxFrames: Int = Recorder.defaultMaxFrames) throws {
        try Recorder.install(maxFrames: maxFrames)
    }

    /// Whether the allocation hook is installed.
    public static var isRecording: Bool { Recorder.isInstalled }

    /// Takes the object graph of every live tracked object.
    ///
    /// Other threads that allocate wait while the heap is frozen; no tracked memory is released
    /// during the walk.
    public static func captureGraph() -> ObjectGraph {
        Recorder.withFrozenHeap { records in
            HeapWalker().walk(count: records.count) { HeapObjectRecord(records[$0]) }
        }
    }

    /// Takes the object graph of the leaked objects alone: the heap is walked into a compact scan
    /// (strong references and retain counts, no names or paths), the leaked objects are found on it
    /// (`LeakAnalysis/leakedNodes(of:)`), and only they become nodes, with every reference between
    /// them. The other live objects are counted (`ObjectGraph/liveObjectsLeftOut`), and the
    /// diagnostics cover the whole walk. Analysing this graph gives the report the whole graph would.
    ///
    /// The leaked objects are found and built while the heap is frozen, so their memory is read
    /// before anything can free it. Other threads that allocate wait meanwhile, as for
    /// ``captureGraph()``.
    ///
    /// - Parameters:
    ///   - liveTypes: also count every live object by type (`ObjectGraph/liveTypes`).
    ///   - orphanScan: also look for orphans (`ObjectGraph/orphans`): objects whose unexplained
    ///     retains no word anywhere in the process could account for. The scan stops every other
    ///     thread with a signal while it reads memory (docs/how-it-works.md, "Orphaned retains"), so a
    ///     blocking system call of another thread may return `EINTR`; `leakgraph run` does it at exit.
    public static func captureLeakedGraph(liveTypes: Bool = false, orphanScan: Bool = false) -> ObjectGraph {
        var steps = LeakCheckSteps()
        return captureLeakedGraph(liveTypes: liveTypes, orphanScan: orphanScan, steps: &steps)
    }

    /// ``captureLeakedGraph(liveTypes:orphanScan:)``, and how long each step took (`steps`), the heap
    /// frozen among them (``LeakCheckSteps/frozen``): from before the hook's locks are taken until after
    /// they are released.
    ///
    /// `knownOrphans`: addresses an earlier scan proved orphaned (see
    /// `LeakReport/orphanAddresses`). No word anywhere referenced them then, so nothing the program
    /// holds can reference them since; one still alive with unexplained retains stays an orphan, even
    /// though the earlier check's own freed buffers may now hold copies of its address.
    ///
    /// `whileFrozen`, when given, runs last while the heap is still frozen, with the walk (a heap
    /// snapshot is taken there: ``snapshot(program:holders:orphanScan:)``).
    static func captureLeakedGraph(
        liveTypes: Bool = false, orphanScan: Bool = false, knownOrphans: Set<UInt> = [], steps: inout LeakCheckSteps,
        progress: LeakCheckProgress? = nil, whileFrozen: ((FrozenWalk) -> Void)? = nil
    ) -> ObjectGraph {
        let clock = ContinuousClock()
        let start = clock.now
        defer { steps.frozen = clock.now - start }
        return Recorder.withFrozenObjects { objects in
            var mark = clock.now
            /// The time since the previous step ended.
            func lap() -> Duration {
                let now = clock.now
                defer { mark = now }
                return now - mark
            }
            steps.snapshot = mark - start
            let record = frozenRecords(objects)
            let walker = HeapWalker()
            progress?("walk", 0, 2 * objects.count)
            var scan = walker.scan(
                addresses: objects, record: record, progress: progress.map { report in { report("walk", $0, $1) } })
            steps.walk = lap()
            steps.liveBytes = scan.liveBytes
            progress?(orphanScan ? "orphan scan" : "leaked objects", 0, 0)
            // Orphans: objects whose unexplained retains nothing in the process can hold, and raw
            // pointers that are all that holds some objects (the holder scan reads every other place a
            // pointer can live while the heap is frozen).
            let found =
                orphanScan ? OrphanSearch.search(in: scan, objects: objects, known: knownOrphans) : OrphanSearch.Found()
            scan = scan.adding(found.rawReferences)
            let orphans = found.orphans
            steps.orphanScan = lap()
            progress?("leaked objects", 0, 0)
            let leaked = LeakAnalysis.leakedNodes(of: scan.strongGraph, orphans: orphans)
            var graph = walker.objectGraph(of: leaked, in: scan, address: { objects[$0] }, record: record)
            graph.diagnostics += found.diagnostics
            let leakedSet = Dictionary(uniqueKeysWithValues: leaked.enumerated().map { ($1, $0) })
            graph.orphans = orphans.compactMap { leakedSet[$0] }.sorted()
            if liveTypes {
                graph.liveTypes = scan.liveTypes
            }
            graph.attachRetainHistories()
            whileFrozen?(
                FrozenWalk(
                    walker: walker, scan: scan, leaked: leaked, orphans: orphans, objects: objects, record: record))
            steps.leakedGraph = lap()
            return graph
        }
    }

    /// The graph between the tracked objects at `addresses` alone, read while the heap is frozen
    /// (``LeakCheckSteps/frozen``): each one's retain count and references, with paths, to the others.
    /// An address that is no tracked object any more (freed, and its memory perhaps reused) is left
    /// out, so whatever referenced it no longer matches.
    ///
    /// Analysed alone, such a set proves what a walk of every object proves for it: an object whose
    /// retain count equals the strong references into it from the set has no other strong reference
    /// anywhere, since every strong reference holds a retain. A set found leaked by a whole walk and
    /// found here again unchanged (`LeakReport/confirmed(by:)`) is confirmed as a second whole walk
    /// would confirm it; one that changed is not. The freeze costs the set's own objects (each
    /// looked up by address: no snapshot of every tracked address), not a walk of the heap.
    static func capturedGraph(rereading addresses: [UInt], steps: inout LeakCheckSteps) -> ObjectGraph {
        let clock = ContinuousClock()
        let start = clock.now
        defer { steps.frozen = clock.now - start }
        return Recorder.whileFrozen {
            let snapshotted = clock.now
            steps.snapshot = snapshotted - start
            var records: [HeapObjectRecord] = []
            records.reserveCapacity(addresses.count)
            for address in addresses.sorted() {
                if let record = Recorder.frozenRecord(at: address) { records.append(HeapObjectRecord(record)) }
            }
            let graph = HeapWalker().walk(records)
            steps.leakedGraph = clock.now - snapshotted
            return graph
        }
    }

    /// Runs a whole leak check and returns its report.
    ///
    /// Only the leaked objects become `ObjectGraph` nodes (see docs/how-it-works.md, "Analysis"): a
    /// check costs a few tens of bytes per live object.
    ///
    /// Creation stacks of leaked objects are symbolized with libdw; when that fails the report says so in
    /// its diagnostics (`(creation stacks)`), and the leaks are reported without backtraces.
    ///
    /// - Parameters:
    ///   - program: the program description to put in the report.
    ///   - executablePath: the main executable, used to put the user's own frames first (by default the
    ///     running executable).
    ///   - liveTypes: also count every live object by type, into `LeakReport/liveTypes` (for
    ///     `leakgraph diff`'s growth by type).
    ///   - orphanScan: also report orphans, objects retained from nowhere (see
    ///     ``captureLeakedGraph(liveTypes:orphanScan:)``; off by default: it stops the other threads).
    ///   - knownOrphans: for a confirmation check, the orphans an earlier check found
    ///     (`LeakReport/orphanAddresses`): still orphans when still alive with unexplained retains.
    public static func check(
        program: LeakReport.Program = LeakReport.Program(path: "", arguments: [], exitStatus: 0),
        executablePath: String? = nil, liveTypes: Bool = false, orphanScan: Bool = false, knownOrphans: Set<UInt> = []
    ) -> LeakReport {
        measuredCheck(
            program: program, executablePath: executablePath, liveTypes: liveTypes, orphanScan: orphanScan,
            knownOrphans: knownOrphans
        ).report
    }

    /// Runs a whole leak check (as ``check(program:executablePath:liveTypes:orphanScan:knownOrphans:)``) and measures how long it
    /// froze the heap: the pause it imposed on other threads that allocate or free a tracked object.
    ///
    /// A confirmation check passes the first check's orphans as `knownOrphans`
    /// (`LeakReport/orphanAddresses`; see ``captureLeakedGraph(liveTypes:orphanScan:)``).
    public static func measuredCheck(
        program: LeakReport.Program = LeakReport.Program(path: "", arguments: [], exitStatus: 0),
        executablePath: String? = nil, liveTypes: Bool = false, orphanScan: Bool = false, knownOrphans: Set<UInt> = []
    ) -> MeasuredLeakCheck {
        measuredCheck(
            program: program, executablePath: executablePath, liveTypes: liveTypes, orphanScan: orphanScan,
            knownOrphans: knownOrphans, stacks: nil)
    }

    /// The frames of a retain's stack as store-site attribution reads them: innermost first, inlined calls
    /// expanded, the runtime's own frames left out, each marked as the program's own code or not.
    static func historyFrames(_ stackID: UInt32, with symbolizer: any StackSymbolizing, executablePath: String?)
        -> [HistoryFrame]
    {
        symbolizer.symbolizeExpandingInlines(returnAddresses: Recorder.stack(stackID)).compactMap { frame in
            let category = FramePolicy.category(of: frame, executablePath: executablePath)
            guard category != .runtime else { return nil }
            return HistoryFrame(
                function: frame.function, file: frame.file, line: frame.line, isUserCode: category == .user,
                address: frame.address)
        }
    }

    /// ``measuredCheck(program:executablePath:liveTypes:orphanScan:knownOrphans:)`` that reports how far it
    /// has come (`leakgraph run`'s progress on a terminal).
    package static func measuredCheck(
        liveTypes: Bool, orphanScan: Bool, progress: @escaping LeakCheckProgress
    ) -> MeasuredLeakCheck {
        measuredCheck(
            program: LeakReport.Program(path: "", arguments: [], exitStatus: 0), liveTypes: liveTypes,
            orphanScan: orphanScan,
            stacks: nil, progress: progress)
    }

    /// Turns one creation stack into the frames a report shows, with the check's symbolizer.
    typealias StackResolver =
        @Sendable (_ stackID: UInt32, _ symbolizer: any StackSymbolizing, _ executablePath: String?) ->
        [SymbolizedFrame]

    /// The frames of creation stack `stackID`: its addresses symbolized with inlined calls expanded,
    /// user frames first.
    static func resolveStack(_ stackID: UInt32, with symbolizer: any StackSymbolizing, executablePath: String?)
        -> [SymbolizedFrame]
    {
        FramePolicy.userFramesFirst(
            symbolizer.symbolizeExpandingInlines(returnAddresses: Recorder.stack(stackID)),
            executablePath: executablePath)
    }

    /// The symbolizer of one check's creation stacks: under `leakgraph run` (`LG_ENV_SYMBOLIZER`), one
    /// that asks `leakgraph`'s process (``RemoteSymbolizer``: the program reads no debug information,
    /// and the frames are the same), unless `local` is asked for; otherwise, or when `leakgraph`
    /// cannot be reached, a ``Symbolizer`` in this process.
    static func stackSymbolizer(local: Bool) -> Result<any StackSymbolizing, any Error> {
        if !local, let path = getenv(LG_ENV_SYMBOLIZER).map({ String(cString: $0) }), !path.isEmpty,
            let remote = try? RemoteSymbolizer(socketPath: path)
        {
            return .success(remote)
        }
        return Result { try Symbolizer() }
    }

    /// Whether a check asked to have its creation stacks symbolized in its forked child
    /// (`symbolizesInChild`) lets the child do it: only where this process would otherwise make a
    /// ``Symbolizer`` of its own. Under `leakgraph run` (`LG_ENV_SYMBOLIZER`) `leakgraph`'s process
    /// symbolizes them already (its server keeps one symbolizer per asking process: a child, a new
    /// process each check, would make it read the program's modules again every check); with retain
    /// histories (`--history`) this process symbolizes the retains' stacks and reads its own code for
    /// store sites.
    static func symbolizesInChild(asked: Bool) -> Bool {
        guard asked, !RetainHistoryLog.isActive else { return false }
        let remote = getenv(LG_ENV_SYMBOLIZER).map { String(cString: $0) } ?? ""
        return remote.isEmpty
    }

    /// ``measuredCheck(program:executablePath:liveTypes:orphanScan:knownOrphans:)`` that takes creation stacks symbolized by an
    /// earlier check from `stacks` and keeps the ones it symbolizes there (``LeakMonitor``'s periodic
    /// checks). The symbolizer is made only when a stack is missing from `stacks`.
    ///
    /// - Parameter resolve: how a missing stack is symbolized (tests count the calls).
    ///
    /// - Parameter rereading: when given, the check reads only the objects at these addresses
    ///   (``capturedGraph(rereading:steps:)``) instead of walking every tracked object: the
    ///   confirmation of a monitor's candidates.
    ///
    /// - Parameter childWalkTimeout: when given, the walk runs in a forked child
    ///   (``capturedGraphInChild(liveTypes:timeout:steps:)``: the heap frozen only for the fork), unless
    ///   the orphan scan or a snapshot (`whileFrozen`) needs the live process; a child
    ///   that gives no graph within the timeout is killed and the heap is walked frozen instead
    ///   (``LeakCheckSteps/childWalkFailure`` says why).
    ///
    /// - Parameter symbolizesInChild: with a walk in a forked child, whether the child also symbolizes
    ///   the creation stacks the report needs that `stacks` does not hold, so that this process makes
    ///   no symbolizer (``symbolizesInChild(asked:)`` says when it may); any stack whose frames did not
    ///   come is symbolized here.
    static func measuredCheck(
        program: LeakReport.Program, executablePath: String? = nil, liveTypes: Bool = false, orphanScan: Bool = false,
        knownOrphans: Set<UInt> = [], diagnosticSites: Bool = true, stacks: SymbolizedStackCache?,
        resolve: @escaping StackResolver = resolveStack(_:with:executablePath:), progress: LeakCheckProgress? = nil,
        whileFrozen: ((FrozenWalk) -> Void)? = nil, rereading: [UInt]? = nil, childWalkTimeout: Duration? = nil,
        symbolizesInChild: Bool = false, knownLeaks: KnownLeaks? = nil, keepsLeakedGraph: Bool = false
    ) -> MeasuredLeakCheck {
        var steps = LeakCheckSteps()
        let clock = ContinuousClock()
        var symbolizing = Duration.zero
        var storedLeakedGraph: ObjectGraph?
        var leftOutKnown: Set<UInt64> = []
        // Every check marks where it began, scanning or not: the frames of a check running on another
        // thread hold copies of every object's address, and a scan in progress must not take them
        // for holders (it reads a marked thread's stack from the mark up).
        HolderScan.enterCheck()
        defer { HolderScan.leaveCheck() }
        let report = Recorder.ignoringCurrentThread {
            let executable =
                executablePath ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            // In a forked child when asked and nothing needs the live process during the walk (the
            // orphan scan reads its threads, a snapshot is taken frozen).
            let inChild =
                childWalkTimeout.flatMap { timeout in
                    rereading == nil && !orphanScan && whileFrozen == nil
                        ? capturedGraphInChild(
                            liveTypes: liveTypes, timeout: timeout,
                            symbolizing: Self.symbolizesInChild(asked: symbolizesInChild)
                                ? ChildSymbolization(cached: stacks, resolve: resolve, executablePath: executable)
                                : nil,
                            known: knownLeaks, steps: &steps) : nil
                }
            let childFrames = inChild?.frames ?? [:]
            let graph =
                rereading.map { capturedGraph(rereading: $0, steps: &steps) } ?? inChild?.graph
                ?? captureLeakedGraph(
                    liveTypes: liveTypes, orphanScan: orphanScan, knownOrphans: knownOrphans, steps: &steps,
                    progress: progress,
                    whileFrozen: whileFrozen)
            if keepsLeakedGraph { storedLeakedGraph = KnownLeaks.storing(graph) }
            leftOutKnown = Set((inChild?.leftOutKnown ?? []).map(KnownLeaks.stored))
            steps.walkPeakResidentBytes = LeakCheckSteps.processPeakResidentBytes()
            progress?("analysis", 0, 0)
            let analyzing = clock.now
            let analysis = LeakAnalysis.analyze(graph)
            steps.analysis = clock.now - analyzing
            progress?("report", 0, 0)
            let reporting = clock.now
            // Made on the first stack the cache does not hold; a failure is said once, in the diagnostics.
            // Store sites read the program's own code (optimized stores): with retain histories the
            // stacks are symbolized in this process.
            let local = !analysis.graph.retainHistories.isEmpty
            var symbolizer: Result<any StackSymbolizing, any Error>?
            let symbolize = { (stackID: UInt32) -> [SymbolizedFrame]? in
                let start = clock.now
                defer { symbolizing += clock.now - start }
                if symbolizer == nil {
                    symbolizer = stackSymbolizer(local: local)
                }
                guard case .success(let symbolizer) = symbolizer else { return nil }
                return resolve(stackID, symbolizer, executable)
            }
            // Store sites, when retains were recorded: the retain stacks in their own order, runtime frames
            // left out.
            var storeSites =
                analysis.graph.retainHistories.isEmpty
                ? [:]
                : analysis.storeSites(
                    fieldOffsets: fieldOffsets(in: analysis.graph),
                    pairsByEqualStacks: Self.pairsHistoriesByEqualStacks
                ) { stackID in
                    if symbolizer == nil { symbolizer = stackSymbolizer(local: local) }
                    guard case .success(let symbolizer) = symbolizer else { return [] }
                    return historyFrames(stackID, with: symbolizer, executablePath: executable)
                }
            if !storeSites.isEmpty, case .success(let made) = symbolizer, let symbolizer = made as? Symbolizer {
                for (reference, site) in storeSites {
                    storeSites[reference] = placingOptimizedStores(
                        site, of: analysis.graph.references[reference], in: analysis.graph, symbolizer: symbolizer,
                        executablePath: executable)
                }
            }
            var report = LeakReport(
                analysis: analysis, program: program, diagnosticSites: diagnosticSites, storeSites: storeSites
            ) { stackID in
                let id = UInt32(stackID)
                // The child's frames first (symbolized there for this report), then this process.
                let resolved = { childFrames[id] ?? symbolize(id) }
                let frames = stacks.map { $0.frames(ofStack: id, resolve: resolved) } ?? resolved()
                return (frames ?? []).map { LeakReport.Frame(function: $0.function, file: $0.file, line: $0.line) }
            }
            if case .success(let made) = symbolizer, let remote = made as? RemoteSymbolizer {
                steps.symbolizedInLeakgraph = remote.remoteFailure == nil
                if let error = remote.failure { symbolizer = .failure(error) }
            }
            if case .failure(let error) = symbolizer {
                report.diagnostics.append(
                    WalkDiagnostic(
                        typeName: "(creation stacks)", reason: "not symbolized: \(error)",
                        objectCount: analysis.leaked.count))
            }
            steps.symbolization += symbolizing
            steps.report = clock.now - reporting - symbolizing
            return report
        }
        steps.peakResidentBytes = LeakCheckSteps.processPeakResidentBytes()
        var check = MeasuredLeakCheck(report: report, pause: steps.frozen, steps: steps)
        check.storedLeakedGraph = storedLeakedGraph
        check.leftOutKnown = leftOutKnown
        return check
    }
}
