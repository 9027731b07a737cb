import CLeakGraphContract
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import LeakGraphAnalysis
import LeakGraphHeap
import LeakGraphModel
import LeakGraphRecording

/// Finds the orphans of a frozen heap: objects whose unexplained retains (retain count above the
/// strong references the walk read into them) nothing in the process can account for.
///
/// Only the nodes with unexplained retains are candidates. The holder scan (`HolderScan`) reads
/// every other place a pointer can live; a candidate is an orphan when no word outside tracked
/// objects could point into it, and no tracked object holds more words that could point into it
/// than the strong references the walk read from it to the candidate (an `unowned`, `Unmanaged` or
/// unread field counts as a holder). When in doubt — the scan abstained, or a candidate was found
/// anywhere — it is held.
enum OrphanSearch {
    /// The orphaned nodes of `scan`, ascending (empty when the scan abstained), and diagnostics for
    /// objects held from C memory that is not read (``opaqueHolders``).
    ///
    /// Must run inside `Recorder/withFrozenObjects(_:)`; `objects` is that snapshot. Candidates at
    /// `known` addresses (orphans an earlier scan proved) are orphans without being scanned for.
    static func orphans(
        in scan: HeapScan, objects: UnsafeBufferPointer<UInt>, known: Set<UInt> = []
    ) -> (orphans: [Int], diagnostics: [WalkDiagnostic]) {
        let graph = scan.strongGraph
        var unexplained = LeakAnalysis.unexplainedNodes(of: graph)
        let address = { (node: Int) in objects[scan.recordPosition(ofNode: node)] }
        let knownNodes = known.isEmpty ? [] : unexplained.filter { known.contains(address($0)) }
        if !knownNodes.isEmpty {
            let knownSet = Set(knownNodes)
            unexplained.removeAll { knownSet.contains($0) }
        }
        guard !unexplained.isEmpty else { return (knownNodes, []) }
        let candidateRange = { (address: UInt) in
            address ..< address + max(UInt(Recorder.frozenRecord(at: address)?.size ?? 16), 16)
        }
        // First the cheap pass: candidates a global holds need no scan of the whole process (and when
        // every candidate is held so, the holder scan does not run).
        let statics = HolderScan.heldByStaticData(
            count: unexplained.count, candidate: { candidateRange(address(unexplained[$0])) }, module: #dsohandle)
        if let statics {
            unexplained = unexplained.indices.filter { !statics.held[$0] }.map { unexplained[$0] }
        }
        let statistics = getenv(LG_ENV_ORPHAN_SCAN_STATS) != nil
        if statistics, let statics {
            // The measurement knob of docs/performance.md ("The orphan scan"); written to standard error.
            let line = "leakgraph: orphan scan: \(statics.held.count) candidates, \(statics.held.count - unexplained.count) held by "
                + "globals (\(statics.bytesRead) bytes of static data read)\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        guard !unexplained.isEmpty else { return (knownNodes, []) }
        // Node order is address order (the snapshot is sorted), so the candidates come out ascending.
        let result = HolderScan.scan(
            count: unexplained.count,
            candidate: { candidateRange(address(unexplained[$0])) },
            objects: objects)
        if statistics {
            // The measurement knob of docs/performance.md ("The orphan scan"); written to standard error.
            let line = result.map {
                "leakgraph: orphan scan: \(unexplained.count) candidates, \($0.bytesRead) bytes in \($0.mappingsRead) mappings, "
                    + "\($0.threadsStopped) threads stopped for \($0.stoppedNanoseconds / 1000) µs\n"
            } ?? "leakgraph: orphan scan: \(unexplained.count) candidates, abstained\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        guard let result else { return (knownNodes, []) }
        var held = result.heldFromUntrackedMemory
        // Words inside tracked objects: held unless the walk read as many strong references from that
        // object to the candidate.
        var words: [Int: [Int: Int]] = [:]
        var fromCoreFoundation: Set<Int> = []
        for (candidate, holder) in result.trackedHolders {
            guard let holderNode = scan.node(at: holder, address: { objects[$0] }) else {
                held[candidate] = true  // a tracked object the walk skipped (deinitializing): unknown layout
                continue
            }
            if scan.typeName(ofNode: holderNode) == coreFoundationObject {
                fromCoreFoundation.insert(candidate)
            }
            if !held[candidate] {
                words[candidate, default: [:]][holderNode, default: 0] += 1
            }
        }
        for (candidate, holders) in words where !held[candidate] {
            let target = UInt32(unexplained[candidate])
            for (holderNode, count) in holders {
                let start = Int(graph.offsets[holderNode])
                let end = Int(graph.offsets[holderNode + 1])
                let read = graph.targets[start ..< end].lazy.filter { $0 == target }.count
                if count > read {
                    held[candidate] = true
                    break
                }
            }
        }
        let orphans = unexplained.indices.filter { !held[$0] }.map { unexplained[$0] }
        var diagnostics = opaqueHolderDiagnostics(
            in: scan, objects: objects, candidates: unexplained, firstUntrackedHolder: result.firstUntrackedHolder)
        // A CoreFoundation object (a `Timer`'s `CFRunLoopTimer`, a CFSet) is a tracked Swift object
        // whose C struct no metadata describes: its words are holders the walk cannot name.
        var byType: [String: Int] = [:]
        for candidate in fromCoreFoundation {
            byType[scan.typeName(ofNode: unexplained[candidate]), default: 0] += 1
        }
        for (type, count) in byType.sorted(by: { $0.key < $1.key }) {
            diagnostics.append(
                WalkDiagnostic(
                    typeName: type,
                    reason: "retained from a CoreFoundation object (`\(coreFoundationObject)`, e.g. a `Timer`'s `CFRunLoopTimer`); "
                        + "CoreFoundation structs are not read; what it holds counts as held (a cycle through it is not found)",
                    objectCount: count))
        }
        return ((orphans + knownNodes).sorted(), diagnostics)
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

    /// The type of CoreFoundation's objects in swift-corelibs-foundation (allocated as Swift objects,
    /// their fields a C struct).
    static let coreFoundationObject = "Foundation.__NSCFType"

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
                windows.append((first ..< first + window, holder))
                for inner in HolderScan.readWords(at: first, count: Int(window / 8)) {
                    let second = inner & mask
                    guard second > 0xFFFF, second != first, scan.node(at: second, address: { objects[$0] }) == nil else { continue }
                    windows.append((second ..< second + window, holder))
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
                    typeName: type, reason: "retained from \(holder); what it holds counts as held (a cycle through it is not found)",
                    objectCount: count)
            }
        }
    }
}
