import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording
import LeakGraphSymbolication
import Synchronization

/// A check's first walk done in a forked child (``LeakChecker/capturedGraphInChild(liveTypes:timeout:steps:)``):
/// the child walks its copy-on-write instant of the heap and finds the leaked objects exactly as
/// ``LeakChecker/captureLeakedGraph(liveTypes:orphanScan:)`` does; the graph of the leaked objects comes
/// back in this form (JSON), and the parent analyses it with the same code.
struct ForkedWalk: Codable {
    /// An ``ObjectNode``.
    struct Node: Codable {
        var address: UInt64
        var typeName: String
        var kind: ObjectKind
        var size: Int
        var retainCount: Int
        var stackID: Int?
    }

    /// A ``Reference``.
    struct Edge: Codable {
        var from: Int
        var to: Int
        var path: ReferencePath
        var ownership: Ownership
    }

    var nodes: [Node]
    var references: [Edge]
    var diagnostics: [WalkDiagnostic]
    /// Each diagnostic's ``WalkDiagnostic/stackID`` (its JSON leaves it out): the report names a
    /// diagnostic's creation site from it.
    var diagnosticStackIDs: [Int?]
    var trackedObjects: Int
    var liveObjectsLeftOut: Int
    var liveTypes: [TypeTally]?
    /// ``LeakCheckSteps/liveBytes``.
    var liveBytes: Int
    /// The child's walk (``LeakCheckSteps/walk``) and the leaked objects' graph
    /// (``LeakCheckSteps/leakedGraph``), in nanoseconds.
    var walkNanoseconds: Int64
    var leakedGraphNanoseconds: Int64
    /// The metadata of the types whose layouts the child built (the parent had not prepared them): the
    /// parent builds them after the check, for the next child (``LeakChecker/childWalker``).
    var newLayoutMetadata: [UInt64]
    /// The addresses of the leaked objects left out as known and unchanged (``KnownLeaks``): the parent
    /// puts their part of the graph back.
    var unchangedKnown: [UInt64] = []

    /// The graph of the leaked objects, as the child built it.
    var graph: ObjectGraph {
        var diagnostics = diagnostics
        for (index, stackID) in zip(diagnostics.indices, diagnosticStackIDs) {
            diagnostics[index].stackID = stackID
        }
        var graph = ObjectGraph(
            nodes: nodes.map {
                ObjectNode(
                    address: $0.address, typeName: $0.typeName, kind: $0.kind, size: $0.size,
                    retainCount: $0.retainCount, stackID: $0.stackID)
            },
            references: references.map { Reference(from: $0.from, to: $0.to, path: $0.path, ownership: $0.ownership) },
            diagnostics: diagnostics, trackedObjects: trackedObjects, liveObjectsLeftOut: liveObjectsLeftOut)
        graph.liveTypes = liveTypes
        return graph
    }

    /// The creation stacks a report of this graph asks for (its objects', its diagnostics' examples),
    /// less those `cached` already holds: ascending, each once.
    func stacksToSymbolize(cached: SymbolizedStackCache?) -> [UInt32] {
        let ids = Set((nodes.map(\.stackID) + diagnosticStackIDs).compactMap { $0.map { UInt32($0) } })
        return ids.filter { !(cached?.contains(stack: $0) ?? false) }.sorted()
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

extension ForkedWalk {
    /// The walk of `objects` (every tracked object, ascending; the heap frozen) with `walker`, a copy
    /// of the parent's, whose layouts are already built: the leaked objects' graph, less the `known`
    /// leaks found unchanged (their addresses in ``unchangedKnown``). Runs in the child.
    init(objects: UnsafeBufferPointer<UInt>, liveTypes: Bool, walker: HeapWalker, known: KnownLeaks? = nil) {
        let clock = ContinuousClock()
        let start = clock.now
        let record = LeakChecker.frozenRecords(objects)
        let prepared = Set(walker.layoutMetadata)
        let scan = walker.scan(addresses: objects, record: record)
        let walked = clock.now
        let allLeaked = LeakAnalysis.leakedNodes(of: scan.strongGraph)
        let address = { (node: Int) in UInt64(objects[scan.recordPosition(ofNode: node)]) }
        let unchanged = known?.unchanged(leaked: allLeaked, in: scan, address: address) ?? []
        let leaked = unchanged.contains(true) ? zip(allLeaked, unchanged).filter { !$0.1 }.map(\.0) : allLeaked
        unchangedKnown = unchanged.contains(true) ? zip(allLeaked, unchanged).filter(\.1).map { address($0.0) } : []
        let graph = walker.objectGraph(of: leaked, in: scan, address: { objects[$0] }, record: record)
        nodes = graph.nodes.map {
            Node(
                address: $0.address, typeName: $0.typeName, kind: $0.kind, size: $0.size, retainCount: $0.retainCount,
                stackID: $0.stackID)
        }
        references = graph.references.map { Edge(from: $0.from, to: $0.to, path: $0.path, ownership: $0.ownership) }
        diagnostics = graph.diagnostics
        diagnosticStackIDs = graph.diagnostics.map(\.stackID)
        trackedObjects = graph.trackedObjects
        liveObjectsLeftOut = graph.liveObjectsLeftOut
        self.liveTypes = liveTypes ? scan.liveTypes : nil
        liveBytes = scan.liveBytes
        walkNanoseconds = Self.nanoseconds(walked - start)
        leakedGraphNanoseconds = Self.nanoseconds(clock.now - walked)
        newLayoutMetadata = walker.layoutMetadata.filter { !prepared.contains($0) }.map(UInt64.init)
    }
}

/// The creation stacks a forked child symbolized for the report of its walk (``ForkedWalk``), so that
/// the program makes no ``Symbolizer`` and reads no debug information: the child's follow-up message,
/// sent after the walk's result.
struct ForkedStacks: Codable {
    /// The frames of each stack symbolized.
    var frames: [UInt32: [SymbolizedFrame]] = [:]
    /// How long the child took, making its symbolizer included, in nanoseconds.
    var nanoseconds: Int64 = 0

    /// Stacks `ids` symbolized in the child with `resolve`, as the parent's report would (a new
    /// ``Symbolizer`` over the child's memory map, which is the program's); none when `ids` is empty
    /// or no symbolizer could be made (the parent then symbolizes, and says why it could not).
    init(symbolizing ids: [UInt32], with resolve: LeakChecker.StackResolver, executablePath: String?) {
        guard !ids.isEmpty else { return }
        let clock = ContinuousClock()
        let start = clock.now
        guard let symbolizer = try? Symbolizer() else { return }
        for id in ids { frames[id] = resolve(id, symbolizer, executablePath) }
        nanoseconds = ForkedWalk.nanoseconds(clock.now - start)
    }
}

/// What a forked child symbolizes for its walk's report (``LeakChecker/capturedGraphInChild(liveTypes:timeout:symbolizing:steps:)``).
struct ChildSymbolization {
    /// The stacks the parent holds already (the child has its copy: they are not symbolized again).
    var cached: SymbolizedStackCache?
    /// How a stack is symbolized (the parent's report would call it the same way).
    var resolve: LeakChecker.StackResolver
    /// The executable whose frames are the program's own.
    var executablePath: String?
}

extension LeakChecker {
    /// The record of each of the frozen `objects` by position (every address comes from the frozen
    /// table, so its record exists; an empty record, no metadata, would only make the walk skip the
    /// object), fetched a run at a time (``FrozenRecords``).
    static func frozenRecords(_ objects: UnsafeBufferPointer<UInt>) -> (Int) -> HeapObjectRecord {
        let records = FrozenRecords(objects)
        return { position in
            records.record(at: position).map(HeapObjectRecord.init)
                ?? HeapObjectRecord(address: objects[position], metadata: 0, size: 0)
        }
    }

    /// ``captureLeakedGraph(liveTypes:orphanScan:)`` (no orphan scan) walked in a forked child: the heap
    /// is frozen only to snapshot the tracked addresses and fork (``LeakCheckSteps/frozen``), then the
    /// child walks its copy-on-write instant of the heap while this process runs on. `nil`, with the
    /// reason in `steps.childWalkFailure`, when the child gave no graph (it could not be made, did not
    /// finish within `timeout` and was killed, or crashed): the caller walks frozen instead.
    ///
    /// With `symbolizing`, the child then symbolizes the creation stacks the graph's report asks for
    /// that the parent's cache does not hold, and sends their frames after the graph (waited for at
    /// most `timeout` again; ``LeakCheckSteps/symbolizedInChild``): `frames`, empty when they did not
    /// come — the report symbolizes what it misses in this process, as without a child.
    ///
    /// With `known` (a monitor's confirmed leaks), the child leaves out those it finds unchanged and
    /// the graph returned is put back together from theirs and the child's (``KnownLeaks``).
    static func capturedGraphInChild(
        liveTypes: Bool, timeout: Duration, symbolizing: ChildSymbolization? = nil, known: KnownLeaks? = nil,
        steps: inout LeakCheckSteps
    ) -> (graph: ObjectGraph, frames: [UInt32: [SymbolizedFrame]], leftOutKnown: [UInt64])? {
        childWalker.withLock { walker in
            capturedGraphInChild(
                liveTypes: liveTypes, timeout: timeout, symbolizing: symbolizing, known: known, walker: walker,
                steps: &steps)
        }
    }

    /// The walker each forked child starts from: the layouts of every type an earlier child met, built
    /// here after that child's check (``HeapWalker/prepareLayouts(of:)``: metadata only, while the
    /// program runs), so that a child reads the objects of known types without calling into the
    /// runtime, whose locks another thread may have held at the fork. Locked for a check's fork and
    /// the preparation after it (one check at a time uses it).
    static let childWalker = Mutex(HeapWalker())

    private static func capturedGraphInChild(
        liveTypes: Bool, timeout: Duration, symbolizing: ChildSymbolization?, known: KnownLeaks?,
        walker: HeapWalker, steps: inout LeakCheckSteps
    ) -> (graph: ObjectGraph, frames: [UInt32: [SymbolizedFrame]], leftOutKnown: [UInt64])? {
        // In the child: the stacks its walk's report needs, found by the body, symbolized by the follow-up.
        var needed: [UInt32] = []
        let followUp = symbolizing.map { symbolizing in
            { () -> [UInt8] in
                let stacks = ForkedStacks(
                    symbolizing: needed, with: symbolizing.resolve, executablePath: symbolizing.executablePath)
                return (try? Array(JSONEncoder().encode(stacks))) ?? []
            }
        }
        let outcomes = ForkedChild.withFrozenObjects(
            timeout: timeout,
            { objects in
                let walk = ForkedWalk(objects: objects, liveTypes: liveTypes, walker: walker, known: known)
                needed = symbolizing.map { walk.stacksToSymbolize(cached: $0.cached) } ?? []
                return (try? Array(JSONEncoder().encode(walk))) ?? []
            }, followUp: followUp)
        steps.frozen = outcomes.pause
        steps.snapshot = outcomes.pause
        switch outcomes.outcome {
        case .failed(let reason):
            steps.childWalkFailure = reason
            return nil
        case .done(let bytes):
            guard let walk = try? JSONDecoder().decode(ForkedWalk.self, from: Data(bytes)) else {
                steps.childWalkFailure = "the child's result could not be read"
                return nil
            }
            steps.walk = .nanoseconds(walk.walkNanoseconds)
            steps.leakedGraph = .nanoseconds(walk.leakedGraphNanoseconds)
            steps.liveBytes = walk.liveBytes
            steps.walkedInChild = true
            steps.childLayoutsBuilt = walk.newLayoutMetadata.count
            _ = walker.prepareLayouts(of: walk.newLayoutMetadata.map { UInt($0) })
            var frames: [UInt32: [SymbolizedFrame]] = [:]
            if case .done(let bytes) = outcomes.followUp,
                let stacks = try? JSONDecoder().decode(ForkedStacks.self, from: Data(bytes))
            {
                frames = stacks.frames
                steps.symbolizedInChild = frames.count
                steps.symbolization = .nanoseconds(stacks.nanoseconds)
            }
            // Retain histories (`--history`) are read from this process's log: the leaked objects'
            // events since their allocation (a leaked object has no later ones).
            steps.knownLeftOut = walk.unchangedKnown.count
            var graph = known.map { $0.merged(keeping: Set(walk.unchangedKnown), with: walk.graph) } ?? walk.graph
            graph.attachRetainHistories()
            return (graph, frames, walk.unchangedKnown)
        }
    }
}
