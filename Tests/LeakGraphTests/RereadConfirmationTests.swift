import Foundation
@testable import LeakGraph
import Testing

/// Types only these tests allocate.
private final class RereadOwner { var partner: RereadPartner? }
private final class RereadPartner { var owner: RereadOwner? }

/// A pair this suite keeps alive through a global: the trap.
nonisolated(unsafe) private var heldPair: RereadOwner?

@inline(never)
private func makeRereadPair(held: Bool) -> [UInt] {
    let owner = RereadOwner()
    owner.partner = RereadPartner()
    owner.partner?.owner = owner
    if held { heldPair = owner }
    return [owner as AnyObject, owner.partner! as AnyObject].map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
}

/// The confirmation a monitor makes by reading a whole walk's leaked objects again alone
/// (`LeakChecker.capturedGraph(rereading:steps:)`): a set analysed alone is leaked only when no
/// retain comes from outside it, so a pair held from outside (a global) is found held, and a leaked
/// pair is confirmed by its whole walk's report.
@Suite("Confirmation by re-reading the leaked objects alone", .serialized)
struct RereadConfirmationTests {
    @Test("a leaked pair, re-read alone, confirms the whole walk's report")
    func leakedPairConfirmed() throws {
        try LeakChecker.startRecording()
        let addresses = makeRereadPair(held: false)
        let walk = LeakChecker.measuredCheck(program: LeakReport.Program(path: "", arguments: [], exitStatus: 0), stacks: nil)
        let found = walk.report.keepingCycles { cycle in
            cycle.members.contains { walk.report.leaks[$0].type.hasSuffix("RereadOwner") }
        }
        #expect(found.cycles.count == 1)
        let reread = LeakChecker.measuredCheck(
            program: LeakReport.Program(path: "", arguments: [], exitStatus: 0), stacks: nil, rereading: addresses)
        #expect(reread.report.summary.leakedObjects == 2, "the pair alone: each retain explained inside it")
        #expect(found.confirmed(by: reread.report).cycles.count == 1)
        #expect(reread.pause > .zero)
    }

    @Test("the trap: a pair held by a global, re-read alone, is held (the global's retain is in the count)")
    func heldPairIsHeld() throws {
        try LeakChecker.startRecording()
        let addresses = makeRereadPair(held: true)
        defer { heldPair = nil }
        let reread = LeakChecker.measuredCheck(
            program: LeakReport.Program(path: "", arguments: [], exitStatus: 0), stacks: nil, rereading: addresses)
        #expect(reread.report.summary.leakedObjects == 0, "\(reread.report.leaks.map(\.type))")
        #expect(reread.report.summary.liveObjects == 2, "both objects read")
    }
}
