import CLeakGraphContract
#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording

/// Finds the orphans of a frozen heap — objects whose unexplained retains (retain count above the
/// strong references the walk read into them) nothing in the process can account for — and the raw
/// pointers that are the only holders some objects have left.
///
/// Only the nodes with unexplained retains are candidates. The holder scan (`HolderScan`) reads every
/// other place a pointer can live, and the places where the kernel keeps the program's words. A
/// candidate that a word outside every tracked object could reference (a stack, a module's data, C
/// memory no single object owns, the kernel) is held. Otherwise every word that could reference it lies
/// in tracked objects, or in untracked malloc'd memory that one tracked object owns: each such word
/// beyond the strong references the walk read from that object is a ``RawReference`` (the object holds
/// it, so the candidate lives exactly as long as one of its holders), and the retains still left
/// unexplained are orphaned. When in doubt — the scan abstained, a kernel place could not be read — no
/// candidate is resolved, and the diagnostics say why.
enum OrphanSearch {
    /// What the search proved.
    struct Found {
        /// The orphaned nodes, ascending: retains that nothing accounts for.
        var orphans: [Int] = []
        /// References the walk did not read, proven to be all that holds their targets.
        var rawReferences: [RawReference] = []
        /// Why candidates were not resolved (a kernel place not read), and objects held from C memory
        /// that is not read (``opaqueHolders``).
        var diagnostics: [WalkDiagnostic] = []
    }

    /// The orphans and raw references of `scan` (none when the scan abstained).
    ///
    /// Must run inside `Recorder/withFrozenObjects(_:)`; `objects` is that snapshot. Candidates at
    /// `known` addresses (orphans an earlier scan proved) are orphans without being scanned for.
    static func search(in scan: HeapScan, objects: UnsafeBufferPointer<UInt>, known: Set<UInt> = []) -> Found {
        let graph = scan.strongGraph
        var unexplained = LeakAnalysis.unexplainedNodes(of: graph)
        let address = { (node: Int) in objects[scan.recordPosition(ofNode: node)] }
        let knownNodes = known.isEmpty ? [] : unexplained.filter { known.contains(address($0)) }
        if !knownNodes.isEmpty {
            let knownSet = Set(knownNodes)
            unexplained.removeAll { knownSet.contains($0) }
        }
        guard !unexplained.isEmpty else { return Found(orphans: knownNodes) }
        // First the cheap pass: candidates a global holds need no scan of the whole process (and when
        // every candidate is held so, the holder scan does not run).
        let statics = HolderScan.heldByStaticData(
            count: unexplained.count,
            candidate: { index in
                let candidate = address(unexplained[index])
                return candidate..<candidate + max(UInt(Recorder.frozenRecord(at: candidate)?.size ?? 16), 16)
            },
            module: #dsohandle)
        if let statics {
            unexplained = unexplained.indices.filter { !statics.held[$0] }.map { unexplained[$0] }
        }
        let statistics = getenv(LG_ENV_ORPHAN_SCAN_STATS) != nil
        if statistics, let statics {
            // The measurement knob of docs/performance.md ("The orphan scan"); written to standard error.
            let line =
                "leakgraph: orphan scan: \(statics.held.count) candidates, \(statics.held.count - unexplained.count) held by "
                + "globals (\(statics.bytesRead) bytes of static data read)\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        guard !unexplained.isEmpty else { return Found(orphans: knownNodes) }
        // Node order is address order (the snapshot is sorted), so the candidates come out ascending.
        let result = HolderScan.scan(nodes: unexplained, in: scan, objects: objects)
        if statistics {
            // The measurement knob of docs/performance.md ("The orphan scan"); written to standard error.
            let line =
                result.map {
                    "leakgraph: orphan scan: \(unexplained.count) candidates, \($0.bytesRead) bytes in \($0.mappingsRead) mappings, "
                        + "\($0.passes) passes, \($0.chunksFollowed) malloc chunks followed, \($0.kernelWords) words and "
                        + "\($0.kernelBytes) bytes read from the kernel, \($0.threadsStopped) threads stopped for "
                        + "\($0.stoppedNanoseconds / 1000) µs\n"
                } ?? "leakgraph: orphan scan: \(unexplained.count) candidates, abstained\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        guard let result else { return Found(orphans: knownNodes) }
        var held = result.heldFromUntrackedMemory
        // Words in tracked objects (or in memory one of them owns), per candidate and holding node.
        var words: [Int: [Int: [HolderScan.TrackedHolder]]] = [:]
        let soleParents = scan.soleParentTasks()
        for hit in result.trackedHolders where !held[hit.candidate] {
            guard var holderNode = scan.node(at: hit.holder, address: { objects[$0] }) else {
                held[hit.candidate] = true  // a tracked object the walk skipped (deinitializing): unknown layout
                continue
            }
            // A word past the object's size, in the rest of its malloc block, is stale unless the object
            // uses those bytes (a task's frames, a collection's capacity).
            if !hit.throughMemory, hit.location >= hit.holder + UInt(Recorder.frozenRecord(at: hit.holder)?.size ?? 0),
                !scan.mayUseBytesPastItsSize(ofNode: holderNode)
            {
                continue
            }
            // A task group's child that only its parent holds lives exactly as long as the parent: its frames'
            // words count as the parent's (one holder for both).
            for _ in 0..<64 {
                guard let parent = soleParents[holderNode], parent != holderNode else { break }
                holderNode = parent
            }
            words[hit.candidate, default: [:]][holderNode, default: []].append(hit)
        }
        // Each word beyond the strong references the walk read from its holder to the candidate is a
        // raw reference; the candidate's retains left over are orphaned.
        var raw: [RawReference] = []
        var orphans: [Int] = []
        let candidateSet = Set(unexplained)
        var inDegree: [Int: Int] = [:]
        for target in graph.targets where candidateSet.contains(Int(target)) {
            inDegree[Int(target), default: 0] += 1
        }
        for (index, candidate) in unexplained.enumerated() where !held[index] {
            // A task's own retain is the runtime's, released when the task completes: whatever can resume
            // it keeps it alive — a continuation, a handle, a queue, a timer, each a word pointing at it — and
            // no word says which it is. A task no word points at (but its own memory's) is stuck for good (an
            // orphan); one that some other word points at is left to the task rule.
            if scan.isTask(node: candidate) {
                if (words[index] ?? [:]).keys.allSatisfy({ $0 == candidate }) { orphans.append(candidate) }
                continue
            }
            let target = UInt32(candidate)
            // Per holding node, the words beyond the strong references the walk read from it.
            var extra: [(node: Int, words: [RawReference])] = []
            for (holderNode, hits) in (words[index] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let start = Int(graph.offsets[holderNode])
                let end = Int(graph.offsets[holderNode + 1])
                let read = graph.targets[start..<end].lazy.filter { $0 == target }.count
                // The words the walk read are among the hits; which ones does not matter for the count, so
                // the hits inside the object come first (their fields name the raw references better).
                let unread = hits.sorted {
                    ($0.throughMemory ? 1 : 0, $0.location) < ($1.throughMemory ? 1 : 0, $1.location)
                }
                .dropFirst(read)
                .map { hit in
                    RawReference(
                        from: holderNode, to: candidate,
                        step: scan.rawPointerStep(
                            inNode: holderNode, address: hit.holder, location: hit.location,
                            throughMemory: hit.throughMemory))
                }
                if !unread.isEmpty { extra.append((holderNode, unread)) }
            }
            let unexplainedRetains = Int(graph.retainCounts[candidate]) - (inDegree[candidate] ?? 0)
            let others = extra.filter { $0.node != candidate }
            // The candidate lives as long as any of its holders: each holder gets one reference. A holder's
            // words beyond that are copies (an async frame holds several, live or stale) and explain
            // retains only while some are left unexplained. More holders than retains cannot all be
            // references: the candidate stays held.
            guard others.count <= unexplainedRetains else { continue }
            var found = others.map { $0.words[0] }
            for holder in others {
                for word in holder.words.dropFirst() where found.count < unexplainedRetains {
                    found.append(word)
                }
            }
            // A word of the candidate into itself (or into memory only it points to) keeps nothing alive;
            // it stands for a retain the candidate holds on itself only for the retains no other holder
            // explains (an interior pointer to its own storage is no retain).
            for own in extra where own.node == candidate {
                found += own.words.prefix(max(0, unexplainedRetains - found.count))
            }
            raw += found
            if found.count < unexplainedRetains {
                orphans.append(candidate)
            }
        }
        var diagnostics = opaqueHolderDiagnostics(
            in: scan, objects: objects, candidates: unexplained, firstUntrackedHolder: result.firstUntrackedHolder)
        if !result.unreadKernelPlaces.isEmpty, !(orphans.isEmpty && raw.isEmpty) {
            // A place of the kernel that can hold pointers was not read: the candidates nothing else
            // holds may be held there. Nothing is proven; the report says what was not read.
            let resolved = Set(orphans + raw.map(\.to))
            let places = Set(result.unreadKernelPlaces.map(\.description)).sorted().joined(separator: "; ")
            var byType: [String: Int] = [:]
            for node in resolved { byType[scan.typeName(ofNode: node), default: 0] += 1 }
            for (type, count) in byType.sorted(by: { $0.key < $1.key }) {
                diagnostics.append(
                    WalkDiagnostic(
                        typeName: type,
                        reason:
                            "retained from nowhere LeakGraph could read, but not reported: the kernel keeps words it cannot read "
                            + "(\(places)); a pointer there would hold it",
                        objectCount: count))
            }
            return Found(orphans: knownNodes, rawReferences: [], diagnostics: diagnostics)
        }
        return Found(orphans: (orphans + knownNodes).sorted(), rawReferences: raw, diagnostics: diagnostics)
    }

    /// Swift types whose instances keep Swift objects in C memory no metadata describes, and how that
    /// memory is named: libdispatch's block (a `DispatchWorkItem`'s `_block`, which wraps the Swift
    /// closure's block; the walk reads it only while the work item is its one holder) and CoreFoundation's timer (a `Timer`'s `CFRunLoopTimer`, whose context holds
    /// the `Timer`).
    static let opaqueHolders: [String: String] = [
        "Dispatch.DispatchWorkItem":
            "a `DispatchWorkItem` block that something else holds too (a queue it was handed to), or of a shape LeakGraph does not read",
        "Foundation.Timer": "a `Timer`'s CoreFoundation timer (`CFRunLoopTimer`); CoreFoundation structs are not read",
    ]

    /// Bytes of C memory looked at behind each pointer of an opaque holder (blocks and timers are small).
    private static let window: UInt = 256

    /// One diagnostic per held candidate type whose first holder outside tracked objects lies in the C
    /// memory of a ``opaqueHolders`` object: the memory its words point to, and one level further
    /// (libdispatch's block holds the Swift closure's block). A hint, never a proof: the object counts
    /// as held either way.
    private static func opaqueHolderDiagnostics(
        in scan: HeapScan, objects: UnsafeBufferPointer<UInt>, candidates: [Int], firstUntrackedHolder: [UInt]
    ) -> [WalkDiagnostic] {
        let holders = scan.nodes { opaqueHolders[$0] != nil }
        guard !holders.isEmpty else { return [] }
        let mask: UInt = 0x00FF_FFFF_FFFF_FFFF
        var windows: [(range: Range<UInt>, holder: String)] = []
        for node in holders.prefix(10_000) {
            let address = objects[scan.recordPosition(ofNode: node)]
            let size = UInt(Recorder.frozenRecord(at: address)?.size ?? 16)
            let holder = opaqueHolders[scan.typeName(ofNode: node)]!
            // Word 0 is the metadata and word 1 the reference counts.
            for word in HolderScan.readWords(at: address, count: Int(size / 8)).dropFirst(2) {
                let first = word & mask
                guard first > 0xFFFF, scan.node(at: first, address: { objects[$0] }) == nil else { continue }
                windows.append((first..<first + window, holder))
                for inner in HolderScan.readWords(at: first, count: Int(window / 8)) {
                    let second = inner & mask
                    guard second > 0xFFFF, second != first, scan.node(at: second, address: { objects[$0] }) == nil
                    else { continue }
                    windows.append((second..<second + window, holder))
                }
            }
        }
        var counts: [String: [String: Int]] = [:]
        for (index, location) in firstUntrackedHolder.enumerated() where location != 0 {
            guard let holder = windows.first(where: { $0.range.contains(location) })?.holder else { continue }
            counts[scan.typeName(ofNode: candidates[index]), default: [:]][holder, default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.flatMap { type, byHolder in
            byHolder.sorted { $0.key < $1.key }.map { holder, count in
                WalkDiagnostic(
                    typeName: type,
                    reason: "retained from \(holder); what it holds counts as held (a cycle through it is not found)",
                    objectCount: count)
            }
        }
    }
}
