import Foundation
@testable import LeakGraph
import Synchronization
import Testing

/// Types only these tests allocate, one pair per test, so each test reads its own cycles.
private final class OnceOwner { var helper: OnceHelper? }
private final class OnceHelper { var owner: OnceOwner? }
private final class LaterOwner { var helper: LaterHelper? }
private final class LaterHelper { var owner: LaterOwner? }
private final class FolderA { var b: FolderB? }
private final class FolderB { var a: FolderA? }
private final class RequestedNode { var next: RequestedNode? }

/// Makes a two-object cycle of `Owner` and `Helper` that nothing else holds.
@inline(never)
private func leakOnce() {
    let owner = OnceOwner()
    owner.helper = OnceHelper()
    owner.helper?.owner = owner
}

@inline(never)
private func leakLater() {
    let owner = LaterOwner()
    owner.helper = LaterHelper()
    owner.helper?.owner = owner
}

@inline(never)
private func leakFolderPair() {
    let a = FolderA()
    a.b = FolderB()
    a.b?.a = a
}

@inline(never)
private func leakSelfRing() {
    let node = RequestedNode()
    node.next = node
}

/// The monitor in-process: confirmed leaks reported once by fingerprint, later leaks by later checks,
/// outputs (callback, log, rotated folder), on-demand checks on its thread, skipped checks.
@Suite("LeakMonitor", .serialized)
struct LeakMonitorTests {
    @Test("a leak is reported once, with its first-seen time; a later leak by a later check")
    func reportedOnce() throws {
        try LeakChecker.startRecording()
        let log = CollectedLog()
        let calls = Mutex(0)
        let monitor = LeakMonitor(LeakMonitorConfiguration(confirmationDelay: .milliseconds(5), logger: log.logger)) { check in
            if !cycles(of: check.newLeaks, withType: "OnceOwner").isEmpty { calls.withLock { $0 += 1 } }
        }
        leakOnce()
        let first = monitor.checkNow()
        #expect(first.skipReason == nil)
        let found = cycles(of: first.newLeaks, withType: "OnceOwner")
        #expect(found.count == 1)
        let fingerprint = try #require(found.first.map { LeakMonitor.key(of: $0, in: first.newLeaks) })
        #expect(first.newFingerprints.contains(fingerprint))
        #expect(monitor.firstSeen(fingerprint) == first.date)
        #expect(first.pauses.count == 2, "a candidate is confirmed by a second walk")
        #expect(first.pause > .zero)
        #expect(log.warnings.contains { $0.contains("OnceHelper.owner") && $0.contains("OnceOwner") })

        let second = monitor.checkNow()
        #expect(cycles(of: second.newLeaks, withType: "OnceOwner").isEmpty, "reported once")
        #expect(cycles(of: second.leaks, withType: "OnceOwner").count == 1, "still leaked")
        #expect(monitor.firstSeen(fingerprint) == first.date)

        leakLater()
        let third = monitor.checkNow()
        #expect(cycles(of: third.newLeaks, withType: "LaterOwner").count == 1)
        #expect(cycles(of: third.newLeaks, withType: "OnceOwner").isEmpty)
        #expect(calls.withLock { $0 } == 1)
        #expect(monitor.statistics.checksRun == 3)
        #expect(log.warnings.filter { $0.contains("OnceHelper.owner") }.count == 1)
    }

    @Test("each check that finds new leaks writes a JSON report; the folder keeps the newest")
    func reportFolder() throws {
        try LeakChecker.startRecording()
        let folder = temporaryFolder("monitor-folder")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let monitor = LeakMonitor(
            LeakMonitorConfiguration(confirmationDelay: .zero, reportDirectory: folder, keptReports: 1, logger: CollectedLog().logger))
        leakFolderPair()
        monitor.checkNow()
        leakSelfRing()
        let check = monitor.checkNow()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
        #expect(files.count == 1, "older reports are removed")
        let name = try #require(files.first)
        #expect(name.hasPrefix("leakgraph-") && name.hasSuffix(String(format: "-%06d.json", check.number)))
        let report = try LeakReport.decode(from: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        #expect(cycles(of: report, withType: "RequestedNode").count == 1)
        #expect(cycles(of: report, withType: "FolderA").isEmpty, "a report holds the new leaks only")
    }

    @Test("requestCheck wakes the monitor thread; stop ends it")
    func requested() throws {
        let checked = DispatchSemaphore(value: 0)
        let monitor = LeakMonitor(
            LeakMonitorConfiguration(interval: .seconds(3600), confirmationDelay: .zero, logger: CollectedLog().logger))
        monitor.addObserver { _ in checked.signal() }
        try monitor.start()
        monitor.requestCheck()
        #expect(checked.wait(timeout: .now() + 120) == .success)
        monitor.stop()
        #expect(monitor.statistics.checksRun >= 1)
    }

    @Test("a check asked for from inside a check is skipped, not deadlocked")
    func nestedSkipped() throws {
        try LeakChecker.startRecording()
        let nested = Mutex<LeakMonitorCheck?>(nil)
        let monitor = LeakMonitor(LeakMonitorConfiguration(confirmationDelay: .zero, logger: CollectedLog().logger))
        monitor.addObserver { [weak monitor] check in
            guard check.number == 1, let monitor else { return }
            let inner = monitor.checkNow()
            nested.withLock { $0 = inner }
        }
        monitor.checkNow()
        let inner = try #require(nested.withLock { $0 })
        #expect(inner.isSkipped)
        #expect(monitor.statistics.checksSkipped == 1)
    }
}

private final class CachedOwner { var helper: CachedHelper? }
private final class CachedHelper { var owner: CachedOwner? }

@inline(never)
private func leakCachedPair() {
    let owner = CachedOwner()
    owner.helper = CachedHelper()
    owner.helper?.owner = owner
}

/// Periodic checks symbolize each creation stack once: the confirmation walk and later checks take
/// it from the monitor's cache.
@Suite("LeakMonitor symbolization cache", .serialized)
struct LeakMonitorSymbolizationTests {
    @Test("a leaked object's creation stack is symbolized once over three checks, and every report still shows it")
    func stacksSymbolizedOnce() throws {
        try LeakChecker.startRecording()
        let calls = Mutex<[UInt32: Int]>([:])
        // Symbolized in this process (the child's symbolization: ChildSymbolizationUnitTests).
        var configuration = LeakMonitorConfiguration(confirmationDelay: .milliseconds(5), logger: CollectedLog().logger)
        configuration.symbolizesInChild = false
        let monitor = LeakMonitor(configuration, onNewLeaks: nil) { stackID, symbolizer, executable in
            calls.withLock { $0[stackID, default: 0] += 1 }
            return LeakChecker.resolveStack(stackID, with: symbolizer, executablePath: executable)
        }
        leakCachedPair()
        let checks = (0..<3).map { _ in monitor.checkNow() }
        // Each check walks twice (check and confirmation): six reports built, each stack resolved once.
        let resolved = calls.withLock { $0 }
        #expect(!resolved.isEmpty)
        #expect(resolved.filter { $0.value > 1 }.isEmpty, "resolved more than once: \(resolved.filter { $0.value > 1 })")
        #expect(monitor.symbolizedStacks.statistics.hits > 0)
        for check in checks {
            let report = check.leaks
            let owner = report.leaks.first { $0.type.hasSuffix("CachedOwner") }
            #expect(owner?.backtrace.contains { $0.function.contains("leakCachedPair") } == true, "\(owner?.backtrace ?? [])")
        }
    }
}
