import Foundation
@testable import LeakGraph
import Testing

/// Types only these tests allocate: one pair leaked before the checks, one between them.
private final class EarlyOwner { var helper: EarlyHelper? }
private final class EarlyHelper { var owner: EarlyOwner? }
private final class LateOwner { var helper: LateHelper? }
private final class LateHelper { var owner: LateOwner? }
private final class ScannedOwner { var helper: ScannedHelper? }
private final class ScannedHelper { var owner: ScannedOwner? }

@inline(never)
private func leakScannedPair() {
    let owner = ScannedOwner()
    owner.helper = ScannedHelper()
    owner.helper?.owner = owner
}

private final class TrapOwner { var helper: TrapHelper? }
private final class TrapHelper { var owner: TrapOwner? }
private final class Newcomer {
    var target: TrapOwner?
    var me: Newcomer?
}

/// Leaks a `TrapOwner` ⇄ `TrapHelper` pair; returns the owner's address (no reference kept).
@inline(never)
private func leakTrapPair() -> UInt {
    let owner = TrapOwner()
    owner.helper = TrapHelper()
    owner.helper?.owner = owner
    return UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
}

/// Leaks a `Newcomer` that holds itself and the leaked owner at `address` (one retain more on it).
@inline(never)
private func leakNewcomer(holding address: UInt) {
    guard let pointer = UnsafeRawPointer(bitPattern: address) else { return }
    let newcomer = Newcomer()
    newcomer.target = Unmanaged<TrapOwner>.fromOpaque(pointer).takeUnretainedValue()
    newcomer.me = newcomer
}

@inline(never)
private func leakEarlyPair() {
    let owner = EarlyOwner()
    owner.helper = EarlyHelper()
    owner.helper?.owner = owner
}

@inline(never)
private func leakLatePair() {
    let owner = LateOwner()
    owner.helper = LateHelper()
    owner.helper?.owner = owner
}

/// A monitor's confirmation reads again only what the previous check had not proven: a leak confirmed
/// once, found unchanged, is kept without a second read while a new one beside it is read again.
/// (Other suites of this process leak too: the counts are bounds, never equalities.)
@Suite("Known leaks are not read again", .serialized)
struct KnownLeakConfirmationTests {
    @Test("a new leak is re-read alone; the known one stays confirmed without a second read")
    func newLeakRereadAlone() throws {
        try LeakChecker.startRecording()
        let monitor = LeakMonitor(LeakMonitorConfiguration(confirmationDelay: .zero, logger: CollectedLog().logger))
        leakEarlyPair()
        let first = monitor.checkNow()
        #expect(cycles(of: first.leaks, withType: "EarlyOwner").count == 1)
        #expect(first.confirmation == .reread && first.rereadObjects >= 2, "the first check reads its candidates again")

        leakLatePair()
        let second = monitor.checkNow()
        #expect(cycles(of: second.newLeaks, withType: "LateOwner").count == 1, "the new leak is confirmed and new")
        #expect(cycles(of: second.leaks, withType: "EarlyOwner").count == 1, "the known leak stays confirmed")
        #expect(cycles(of: second.newLeaks, withType: "EarlyOwner").isEmpty)
        #expect(second.confirmation == .reread)
        #expect(second.rereadObjects >= 2, "the new pair is read again")
        #expect(
            second.rereadObjects <= second.leaks.summary.leakedObjects - 2,
            "the known pair is not: \(second.rereadObjects) of \(second.leaks.summary.leakedObjects) read again")
        #expect(second.walk == .child)
        #expect(second.knownObjectsLeftOut >= 2, "the child left the known pair out; its graph came back from the first check")
        #expect(
            second.knownObjectsLeftOut <= second.leaks.summary.leakedObjects - 2, "the new pair was sent")
        let early = try #require(cycles(of: second.leaks, withType: "EarlyOwner").first)
        #expect(early.fingerprint == cycles(of: first.leaks, withType: "EarlyOwner").first?.fingerprint)
        #expect(
            second.leaks.references.contains {
                second.leaks.leaks[$0.from].type.hasSuffix("EarlyHelper") && $0.label == "owner"
                    && second.leaks.leaks[$0.to].type.hasSuffix("EarlyOwner")
            }, "the known pair's references are put back")
    }

    @Test("the trap: a known leak that a new leak references is sent again, with its new count and the reference")
    func changedKnownLeakSent() throws {
        try LeakChecker.startRecording()
        let monitor = LeakMonitor(LeakMonitorConfiguration(confirmationDelay: .zero, logger: CollectedLog().logger))
        let address = leakTrapPair()
        let first = monitor.checkNow()
        #expect(first.leaks.leaks.first { $0.type.hasSuffix("TrapOwner") }?.retainCount == 1)
        leakNewcomer(holding: address)
        let second = monitor.checkNow()
        #expect(cycles(of: second.newLeaks, withType: "Newcomer").count == 1)
        #expect(
            second.leaks.leaks.first { $0.type.hasSuffix("TrapOwner") }?.retainCount == 2,
            "read again: the newcomer's retain is counted")
        #expect(
            second.leaks.references.contains {
                second.leaks.leaks[$0.from].type.hasSuffix("Newcomer") && $0.label == "target"
                    && second.leaks.leaks[$0.to].type.hasSuffix("TrapOwner")
            }, "the reference into the known pair is in the graph")
    }

    @Test("with the orphan scan the confirmation walks again; the first walk's graph kept for the next check holds no address the scan could take for a holder")
    func orphanScanConfirms() throws {
        try LeakChecker.startRecording()
        var configuration = LeakMonitorConfiguration(confirmationDelay: .zero, logger: CollectedLog().logger)
        configuration.options.scansForOrphans = true
        let monitor = LeakMonitor(configuration)
        leakScannedPair()
        let first = monitor.checkNow()
        #expect(first.confirmation == .walk)
        #expect(cycles(of: first.newLeaks, withType: "ScannedOwner").count == 1, "confirmed by the second whole walk")
    }
}
