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

/// Stacks resolved in this process, by id, with the functions of their frames.
private final class ResolveCalls: Sendable {
    let counts = Mutex<[UInt32: [String]]>([:])
    var resolved: [UInt32: [String]] { counts.withLock { $0 } }

    /// Whether a stack resolved here passes through `function` (other suites' leaks are resolved too:
    /// every check reports the whole process's leaks).
    func resolvedAny(through function: String) -> Bool {
        resolved.values.contains { $0.contains { $0.contains(function) } }
    }
}

/// A monitor's check whose walk runs in a forked child has the child symbolize the creation stacks its
/// report needs (LeakMonitorConfiguration.symbolizesInChild): this process resolves none of them, a
/// later check finds them in the monitor's cache (the child's copy too, so it symbolizes none), and
/// the frames are those this process makes. A child whose frames do not come leaves them to this
/// process.
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
            let frames = resolve(stackID, symbolizer, executable)
            if getpid() == parent { calls.counts.withLock { $0[stackID] = frames.map(\.function) } }
            return frames
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
        let childMonitor = monitor(inChild: true, timeout: .seconds(120), calls: calls)
        // Another suite of this process may start retain histories (HistoryRerunTests) at any time:
        // then the program symbolizes, as it must (store sites read its code).
        let allowedBefore = LeakChecker.symbolizesInChild(asked: true)
        let checks = (0..<3).map { _ in childMonitor.checkNow() }
        let allowed = allowedBefore && LeakChecker.symbolizesInChild(asked: true)
        #expect(checks.allSatisfy { $0.walk == .child }, "\(checks.map(\.childWalkFailure))")
        if allowed {
            #expect(checks[0].stacksSymbolizedInChild >= 2, "Owner's and Helper's stacks")
            // Later checks' children find them in their copy of the cache (other suites' new leaks may
            // still be symbolized: the exact counts are Tests/EndToEndTests/ChildSymbolizationTests').
            #expect(!calls.resolvedAny(through: "leakSymbolizedPair"), "resolved in this process: \(calls.resolved)")
        } else if !allowedBefore {
            #expect(checks.allSatisfy { $0.stacksSymbolizedInChild == 0 }, "retain histories: the program symbolizes")
            #expect(calls.resolvedAny(through: "leakSymbolizedPair"))
        }
        #expect(childMonitor.symbolizedStacks.statistics.hits > 0)

        let hereCalls = ResolveCalls()
        let here = monitor(inChild: false, calls: hereCalls).checkNow()
        #expect(here.stacksSymbolizedInChild == 0)
        #expect(hereCalls.resolvedAny(through: "leakSymbolizedPair"))
        for type in ["SymbolizedOwner", "SymbolizedHelper"] {
            let inChild = backtraces(checks[0].leaks, type)
            #expect(!inChild.isEmpty && inChild.allSatisfy { $0.contains { $0.contains("leakSymbolizedPair") } }, "\(inChild)")
            #expect(inChild == backtraces(here.leaks, type))
            #expect(backtraces(checks[2].leaks, type) == inChild)
        }
    }

    @Test("a child whose frames do not come (it ends while symbolizing) leaves them to this process; its walk stands")
    func missingFramesFallBack() throws {
        try LeakChecker.startRecording()
        leakLatePair()
        let calls = ResolveCalls()
        let parent = getpid()
        // The child ends at its first stack, after sending its walk: its frames never come (as when
        // it is killed for not sending them within the timeout: the same path in the parent).
        let check = monitor(inChild: true, timeout: .seconds(120), calls: calls) { stackID, symbolizer, executable in
            if getpid() != parent { _exit(3) }
            return LeakChecker.resolveStack(stackID, with: symbolizer, executablePath: executable)
        }.checkNow()
        #expect(check.walk == .child, "\(check.childWalkFailure ?? "")")
        #expect(check.stacksSymbolizedInChild == 0)
        #expect(calls.resolvedAny(through: "leakLatePair"), "symbolized in this process")
        for type in ["LateOwner", "LateHelper"] {
            let frames = backtraces(check.leaks, type)
            #expect(!frames.isEmpty && frames.allSatisfy { $0.contains { $0.contains("leakLatePair") } }, "\(frames)")
        }
    }

    @Test("the stacks a child symbolizes: its objects' and its diagnostics', each once, less those the cache holds")
    func stacksToSymbolize() throws {
        let walk = ForkedWalk(
            nodes: [7, 3, nil, 7, 5].map {
                ForkedWalk.Node(address: 0x1000, typeName: "T", kind: .class, size: 16, retainCount: 1, stackID: $0)
            },
            references: [], diagnostics: [], diagnosticStackIDs: [9, nil, 3], trackedObjects: 5, liveObjectsLeftOut: 0,
            liveTypes: nil, liveBytes: 80, walkNanoseconds: 0, leakedGraphNanoseconds: 0, newLayoutMetadata: [])
        #expect(walk.stacksToSymbolize(cached: nil) == [3, 5, 7, 9])
        let cache = LeakMonitor(LeakMonitorConfiguration(logger: CollectedLog().logger)).symbolizedStacks
        _ = cache.frames(ofStack: 5) { [.unknown(0x10)] }
        _ = cache.frames(ofStack: 9) { [.unknown(0x20)] }
        #expect(walk.stacksToSymbolize(cached: cache) == [3, 7])
    }
}
