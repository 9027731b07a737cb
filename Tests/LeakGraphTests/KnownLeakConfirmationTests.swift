import Foundation
@testable import LeakGraph
import Testing

/// Types only these tests allocate: one pair leaked before the checks, one between them.
private final class EarlyOwner { var helper: EarlyHelper? }
private final class EarlyHelper { var owner: EarlyOwner? }
private final class LateOwner { var helper: LateHelper? }
private final class LateHelper { var owner: LateOwner? }

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
    }
}
