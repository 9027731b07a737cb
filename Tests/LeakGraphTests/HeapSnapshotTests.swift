import Foundation
import LeakGraph
import Testing

/// A class hierarchy only these tests allocate.
class SnapshotBase {
    var payload = [UInt8](repeating: 7, count: 100)
}

final class SnapshotDerived: SnapshotBase {
    var next: SnapshotDerived?
    weak var back: SnapshotDerived?
}

final class SnapshotRingMember {
    var other: SnapshotRingMember?
}

/// Held by a global for the whole test run: a root whose holder is named.
nonisolated(unsafe) var snapshotGlobal: SnapshotDerived?

@inline(never)
private func makeLiveChain() {
    let head = SnapshotDerived()
    head.next = SnapshotDerived()
    head.next?.back = head
    snapshotGlobal = head
}

@inline(never)
private func leakRing() {
    let a = SnapshotRingMember()
    let b = SnapshotRingMember()
    a.other = b
    b.other = a
}

/// `LeakChecker.snapshot()` in-process: every live object and reference, the roots with their holders,
/// the same leaked objects and references as the leak check of the same walk, and a round trip
/// through the file.
@Suite("Heap snapshots in-process", .serialized)
struct HeapSnapshotTests {
    @Test("objects, types with superclasses, references with paths, a global root named, leaks marked")
    func snapshotOfALiveChainAndALeak() throws {
        try LeakChecker.startRecording()
        makeLiveChain()
        leakRing()
        let snapshot = LeakChecker.snapshot()
        let derived = try #require(snapshot.types.firstIndex { $0.name == "LeakGraphTests.SnapshotDerived" })
        #expect(snapshot.types[derived].superclasses == ["LeakGraphTests.SnapshotBase"])
        #expect(snapshot.types[derived].module == "LeakGraphTests")
        #expect(snapshot.types[derived].isProgram)
        let head = try #require(snapshotGlobal.map { UInt64(UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque())) })
        let headID = try #require(snapshot.object(at: head))
        let references = snapshot.references(from: headID)
        let texts = references.map { snapshot.path(ofReference: $0.id).text }
        #expect(texts.contains("next"))
        #expect(texts.contains("payload"))
        let root = try #require(snapshot.roots.first { $0.object == headID })
        #expect(root.holder.kind == .global)
        #expect(root.holder.name?.contains("snapshotGlobal") == true)
        let next = try #require(references.first { snapshot.path(ofReference: $0.id).text == "next" })
        let back = snapshot.references(from: next.to).first { snapshot.path(ofReference: $0.id).text == "back" }
        #expect(back.map { snapshot.ownership(ofReference: $0.id) } == .weak)
        let ring = snapshot.types.firstIndex { $0.name == "LeakGraphTests.SnapshotRingMember" }
        let leakedRing = snapshot.leakedObjects.filter { snapshot.objects.type[$0] == ring.map(UInt32.init) }
        #expect(leakedRing.count >= 2)
        // The creation stack names this file.
        let frames = snapshot.frames(of: headID)
        #expect(frames.contains { $0.category == .program && $0.file?.hasSuffix("HeapSnapshotTests.swift") == true })
        let analysis = SnapshotAnalysis(snapshot)
        #expect(analysis.retainedSize(of: headID) >= 2 * UInt64(snapshot.objects.size[headID]))
    }

    @Test("the snapshot's leaked objects and their references are the leak report's, from the same walk")
    func leakedReferencesEqualTheReport() throws {
        try LeakChecker.startRecording()
        leakRing()
        let (report, snapshot) = LeakChecker.checkWithSnapshot()
        let leaked = snapshot.leakedObjects
        #expect(leaked.count == report.leaks.count)
        let addresses = leaked.map { "0x" + String(snapshot.objects.address[$0], radix: 16) }
        #expect(Set(addresses) == Set(report.leaks.map(\.address)))
        // Every reference between leaked objects, by source address, in the walk's order.
        func byAddress(_ references: [(from: String, to: String, path: ReferencePath, ownership: Ownership)]) -> [String: [String]] {
            Dictionary(grouping: references, by: \.from).mapValues { $0.map { "\($0.to) \($0.path.text) \($0.ownership)" } }
        }
        let graph = snapshot.leakedGraph()
        let address = { (node: Int) in "0x" + String(graph.nodes[node].address, radix: 16) }
        let fromSnapshot = byAddress(graph.references.map { (address($0.from), address($0.to), $0.path, $0.ownership) })
        let leakAddress = Dictionary(uniqueKeysWithValues: report.leaks.map { ($0.id, $0.address) })
        let fromReport = byAddress(report.references.map { (leakAddress[$0.from]!, leakAddress[$0.to]!, $0.path, $0.ownership) })
        #expect(!fromReport.isEmpty)
        #expect(fromSnapshot == fromReport)
        // Analysed, the snapshot's leaked graph gives the report's cycles.
        let rebuilt = LeakReport(analysis: LeakAnalysis.analyze(graph), program: report.program) { snapshot.reportFrames(ofStack: $0) }
        #expect(rebuilt.cycles.map(\.members) == report.cycles.map(\.members))
        #expect(rebuilt.cycles.map(\.fingerprint) == report.cycles.map(\.fingerprint))
    }

    @Test("a snapshot written and read back is equal")
    func roundTrip() throws {
        try LeakChecker.startRecording()
        makeLiveChain()
        leakRing()
        let snapshot = LeakChecker.snapshot()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(getpid()).lgsnap").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HeapSnapshotFile.write(snapshot, to: path)
        let read = try HeapSnapshotFile.read(from: path)
        #expect(read == snapshot)
        #expect(!FileManager.default.fileExists(atPath: path + ".partial"))
    }

    @Test("a monitor with a snapshot folder writes one snapshot per check and keeps the newest")
    func monitorKeepsSnapshots() throws {
        try LeakChecker.startRecording()
        makeLiveChain()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-snapshots-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let monitor = LeakMonitor(LeakMonitorConfiguration(snapshotDirectory: directory, keptSnapshots: 2))
        var paths: [String] = []
        for _ in 0 ..< 3 {
            let check = monitor.checkNow()
            paths.append(try #require(check.snapshotPath))
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".lgsnap") }.sorted()
        #expect(kept == paths.suffix(2).map { ($0 as NSString).lastPathComponent })
        let snapshot = try HeapSnapshotFile.read(from: paths.last!)
        #expect(snapshot.types.contains { $0.name == "LeakGraphTests.SnapshotDerived" })
        #expect(monitor.statistics.lastCheck?.snapshotPath == paths.last)
    }

    @Test("a running monitor's snapshots hold nothing its own thread made: no object created in a check")
    func monitorThreadObjectsStayOut() throws {
        try LeakChecker.startRecording()
        makeLiveChain()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("monitor-thread-snapshots-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let monitor = LeakMonitor(LeakMonitorConfiguration(interval: .milliseconds(50), snapshotDirectory: directory, keptSnapshots: 3))
        try monitor.start()
        // The checks before the last keep their reports, stacks and snapshots' paths in the monitor.
        let deadline = ContinuousClock.now + .seconds(60)
        while monitor.statistics.checksRun < 3, ContinuousClock.now < deadline { usleep(20_000) }
        monitor.stop()
        let path = try #require(monitor.statistics.lastCheck?.snapshotPath)
        let snapshot = try HeapSnapshotFile.read(from: path)
        #expect(snapshot.types.contains { $0.name == "LeakGraphTests.SnapshotDerived" })
        // What the monitor's thread made has the thread's body on its creation stack (what the test's
        // thread made, creating the monitor or calling checkNow() in the test before, is the program's).
        let madeByMonitor = (0 ..< snapshot.objects.count).filter { object in
            snapshot.frames(of: object).contains { $0.function.hasPrefix("closure") && $0.function.contains("MonitorThread.init") }
        }
        #expect(
            madeByMonitor.isEmpty,
            "made by the monitor: \(madeByMonitor.prefix(5).map { "\(snapshot.type(of: $0).name) at \(snapshot.frames(of: $0).prefix(6).map(\.function))" })")
    }
}
