import Foundation
@testable import LeakGraph
import Testing

/// Types only these tests allocate.
private final class ForkedOwner { var helper: ForkedHelper? }
private final class ForkedHelper {
    var owner: ForkedOwner?
    var onDone: (() -> Void)?
}
private final class KeptOwner { var helper: KeptHelper? }
private final class KeptHelper { var owner: KeptOwner? }

/// A type only the layout test allocates: no check has met it before.
private final class LayoutOwner { var helper: LayoutHelper? }
private final class LayoutHelper { var owner: LayoutOwner? }

@inline(never)
private func leakLayoutPair() {
    let owner = LayoutOwner()
    owner.helper = LayoutHelper()
    owner.helper?.owner = owner
}

@inline(never)
private func leakForkedPair() {
    let owner = ForkedOwner()
    let helper = ForkedHelper()
    owner.helper = helper
    helper.owner = owner
    helper.onDone = { [helper] in _ = helper }
}

/// The same shape, kept alive by the caller.
@inline(never)
private func keptPair() -> KeptOwner {
    let owner = KeptOwner()
    owner.helper = KeptHelper()
    owner.helper?.owner = owner
    return owner
}

/// A monitor's first walk in a forked child (docs/monitoring.md, "The walk in a forked child"): the same
/// leaks as a walk of the frozen heap, found exactly (members, references and their paths); the same
/// shape kept alive reported by neither; a child that does not finish in time is killed and the check
/// walks frozen instead.
@Suite("LeakMonitor: the walk in a forked child", .serialized)
struct ForkedWalkTests {
    private func monitor(childWalkTimeout: Duration?) -> LeakMonitor {
        var configuration = LeakMonitorConfiguration(confirmationDelay: .milliseconds(5), logger: CollectedLog().logger)
        configuration.childWalkTimeout = childWalkTimeout
        return LeakMonitor(configuration)
    }

    /// The leaked pair's cycle as a comparable text: its members' types and the references among them.
    private func shape(of report: LeakReport) -> [String] {
        let cycle = cycles(of: report, withType: "ForkedOwner")
        let members = Set(cycle.flatMap { $0.members + $0.holds })
        return report.references.filter { members.contains($0.from) && members.contains($0.to) }.map {
            "\(report.leaks[$0.from].type) -\($0.path)-> \(report.leaks[$0.to].type)"
        }.sorted()
    }

    @Test("a leak found in the child as in the frozen heap; the same shape kept alive: nothing")
    func sameAsFrozen() throws {
        try LeakChecker.startRecording()
        let kept = keptPair()
        leakForkedPair()
        let child = monitor(childWalkTimeout: .seconds(30)).checkNow()
        let frozen = monitor(childWalkTimeout: nil).checkNow()
        #expect(child.walk == .child, "\(child.childWalkFailure ?? "")")
        #expect(child.childWalkFailure == nil)
        #expect(frozen.walk == .frozen && frozen.childWalkFailure == nil)
        for check in [child, frozen] {
            #expect(cycles(of: check.leaks, withType: "ForkedOwner").count >= 1, "\(check.walk as Any)")
            #expect(cycles(of: check.leaks, withType: "KeptOwner").isEmpty, "the kept pair is held")
            #expect(check.confirmation == .reread)
            #expect(check.liveObjects > 4 && check.liveBytes > 0)
        }
        #expect(!shape(of: child.leaks).isEmpty)
        #expect(shape(of: child.leaks) == shape(of: frozen.leaks))
        #expect(child.liveBytes > 0 && frozen.liveBytes > 0)
        kept.helper = nil  // the trap's pair is broken: it leaks into no later test
    }

    @Test("the layouts a child built are prepared in the parent after its check; the next child, starting from them, finds the same leak as a frozen walk")
    func layoutsPreparedForTheNextChild() throws {
        try LeakChecker.startRecording()
        leakLayoutPair()
        let metadata = unsafeBitCast(LayoutOwner.self, to: UInt.self)
        #expect(!LeakChecker.childWalker.withLock { $0.layoutMetadata }.contains(metadata), "no walk met LayoutOwner yet")
        let first = monitor(childWalkTimeout: .seconds(30)).checkNow()
        #expect(first.walk == .child, "\(first.childWalkFailure ?? "")")
        #expect(LeakChecker.childWalker.withLock { $0.layoutMetadata }.contains(metadata), "prepared after the first child")
        let second = monitor(childWalkTimeout: .seconds(30)).checkNow()
        let frozen = monitor(childWalkTimeout: nil).checkNow()
        #expect(second.walk == .child, "\(second.childWalkFailure ?? "")")
        for check in [first, second, frozen] {
            #expect(cycles(of: check.leaks, withType: "LayoutOwner").count >= 1, "\(check.walk as Any)")
        }
        func layoutShape(_ report: LeakReport) -> [String] {
            report.references.filter { report.leaks[$0.from].type.contains("Layout") }.map {
                "\(report.leaks[$0.from].type) -\($0.path)-> \(report.leaks[$0.to].type)"
            }.sorted()
        }
        #expect(!layoutShape(second.leaks).isEmpty)
        #expect(layoutShape(second.leaks) == layoutShape(frozen.leaks))
        #expect(layoutShape(first.leaks) == layoutShape(frozen.leaks))
    }

    @Test("a child that does not finish in time is killed; the check walks frozen and still finds the leak")
    func timeoutFallsBack() throws {
        try LeakChecker.startRecording()
        leakForkedPair()
        let check = monitor(childWalkTimeout: .nanoseconds(1)).checkNow()
        #expect(check.walk == .frozen)
        #expect(check.childWalkFailure?.contains("did not finish") == true, "\(check.childWalkFailure ?? "nil")")
        #expect(cycles(of: check.leaks, withType: "ForkedOwner").count >= 1)
    }
}
