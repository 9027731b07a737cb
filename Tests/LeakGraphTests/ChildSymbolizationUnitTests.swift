import Foundation
@testable import LeakGraph
import Synchronization
import Testing

/// Types only these tests allocate.
private final class SymbolizedOwner { var helper: SymbolizedHelper? }
private final class SymbolizedHelper { var owner: SymbolizedOwner? }
private final class LateOwner { var helper: LateHelper? }
private final class LateHelper { var owner: LateOwner? }

@inline(never)
private func leakSymbolizedPair() {
    let owner = SymbolizedOwner()
    owner.helper = SymbolizedHelper()
    owner.helper?.owner = owner
}

@inline(never)
private func leakLatePair() {
    let owner = LateOwner()
    owner.helper = LateHelper()
    owner.helper?.owner = owner
}

/// Stacks resolved in this process, by id.
private final class ResolveCalls: Sendable {
    let counts = Mutex<[UInt32: Int]>([:])
    var resolved: [UInt32: Int] { counts.withLock { $0 } }
}

/// A monitor's check whose walk runs in a forked child has the child symbolize the creation stacks its
/// report needs (LeakMonitorConfiguration.symbolizesInChild): this process resolves none of them, a
/// later check finds them in the monitor's cache (the child's copy too, so it symbolizes none), and
/// the frames are those this process makes. A child whose frames do not come in time leaves them to
/// this process.
@Suite("LeakMonitor: creation stacks symbolized in the forked child", .serialized)
struct ChildSymbolizationUnitTests {
    /// A monitor whose stacks resolved in this process are counted in `calls` (the child's are counted
    /// in the child's copy of it, which this process never sees).
    private func monitor(
        inChild: Bool, timeout: Duration = .seconds(30), calls: ResolveCalls,
        resolve: @escaping LeakChecker.StackResolver = LeakChecker.resolveStack(_:with:executablePath:)
    ) -> LeakMonitor {
        var configuration = LeakMonitorConfiguration(confirmationDelay: .milliseconds(5), logger: CollectedLog().logger)
        configuration.childWalkTimeout = timeout
        configuration.symbolizesInChild = inChild
        let parent = getpid()
        return LeakMonitor(configuration, onNewLeaks: nil) { stackID, symbolizer, executable in
            if getpid() == parent { calls.counts.withLock { $0[stackID, default: 0] += 1 } }
            return resolve(stackID, symbolizer, executable)
        }
    }

    private func backtraces(_ report: LeakReport, _ suffix: String) -> [[String]] {
        report.leaks.filter { $0.type.hasSuffix(suffix) }.map { leak in
            leak.backtrace.map { "\($0.function) \($0.file ?? "-"):\($0.line ?? 0)" }
        }
    }

    @Test("the child symbolizes the leak's stacks once; this process resolves none; the frames are this process's")
    func symbolizedInChild() throws {
        try LeakChecker.startRecording()
        leakSymbolizedPair()
        let calls = ResolveCalls()
        let childMonitor = monitor(inChild: true, calls: calls)
        let checks = (0..<3).map { _ in childMonitor.checkNow() }
        #expect(checks.allSatisfy { $0.walk == .child }, "\(checks.map(\.childWalkFailure))")
        #expect(checks[0].stacksSymbolizedInChild >= 2, "Owner's and Helper's stacks")
        #expect(checks[1].stacksSymbolizedInChild == 0 && checks[2].stacksSymbolizedInChild == 0, "cached")
        #expect(calls.resolved.isEmpty, "resolved in this process: \(calls.resolved)")
        #expect(childMonitor.symbolizedStacks.statistics.hits > 0)

        let hereCalls = ResolveCalls()
        let here = monitor(inChild: false, calls: hereCalls).checkNow()
        #expect(here.stacksSymbolizedInChild == 0)
        #expect(!hereCalls.resolved.isEmpty)
        for type in ["SymbolizedOwner", "SymbolizedHelper"] {
            let inChild = backtraces(checks[0].leaks, type)
            #expect(!inChild.isEmpty && inChild.allSatisfy { $0.contains { $0.contains("leakSymbolizedPair") } }, "\(inChild)")
            #expect(inChild == backtraces(here.leaks, type))
            #expect(backtraces(checks[2].leaks, type) == inChild)
        }
    }

    @Test("a child whose frames do not come in time is killed after its walk: the walk stands, this process symbolizes")
    func lateFramesFallBack() throws {
        try LeakChecker.startRecording()
        leakLatePair()
        let calls = ResolveCalls()
        let parent = getpid()
        // In the child, resolving a stack takes longer than the timeout.
        let check = monitor(inChild: true, timeout: .seconds(5), calls: calls) { stackID, symbolizer, executable in
            if getpid() != parent { sleep(30) }
            return LeakChecker.resolveStack(stackID, with: symbolizer, executablePath: executable)
        }.checkNow()
        #expect(check.walk == .child, "\(check.childWalkFailure ?? "")")
        #expect(check.stacksSymbolizedInChild == 0)
        #expect(!calls.resolved.isEmpty, "symbolized in this process")
        for type in ["LateOwner", "LateHelper"] {
            let frames = backtraces(check.leaks, type)
            #expect(!frames.isEmpty && frames.allSatisfy { $0.contains { $0.contains("leakLatePair") } }, "\(frames)")
        }
    }
}
