import Foundation
import LeakGraphRender
import LeakGraphReport
import Testing

/// `ReportDiff`: root cycles matched by fingerprint, leaked objects by type, and the verdict a CI job
/// acts on.
@Suite struct ReportDiffTests {
    static let old = ReportFixtures.leakingReport

    /// `old` with its second cycle twice and its third gone.
    static var new: LeakReport {
        LeakReport(
            combining: [.init(name: "a", report: old), .init(name: "b", report: old.keepingCycles { $0.id == 1 })],
            program: old.program
        ).keepingCycles { $0.id != 2 }
    }

    @Test("the same report: nothing new, nothing changed")
    func same() {
        let diff = ReportDiff(old: Self.old, new: Self.old)
        #expect(diff.newLeaks.isEmpty && diff.grownLeaks.isEmpty && diff.leakedTypes.isEmpty)
        #expect(diff.cycles.allSatisfy { $0.oldCount == $0.newCount })
        #expect(diff.text.hasPrefix("0 new leaks; 0 leaked types changed."))
    }

    @Test("a kind found twice is grown, a kind no longer found is gone, types count the difference")
    func grownAndGone() throws {
        let diff = ReportDiff(old: Self.old, new: Self.new)
        let grown = try #require(diff.grownLeaks.first)
        #expect(diff.grownLeaks.count == 1 && diff.newLeaks.isEmpty)
        #expect(grown.oldCount == 1 && grown.newCount == 2, "\(grown)")
        #expect(grown.key == (Self.old.cycles[1].fingerprint ?? "types: " + grown.types))
        #expect(grown.types.contains("Member × 2"), "\(grown.types)")
        #expect(diff.cycles.filter { $0.newCount == 0 }.count == 1)
        #expect(diff.text.contains("1 grown, 1 gone"))
        #expect(diff.text.contains("  grown   1 → 2 ("))
        #expect(diff.leakedTypes.contains { $0.type == "Chat.Member" && $0.oldCount == 2 && $0.newCount == 4 })

        let reverse = ReportDiff(old: Self.new, new: Self.old)
        #expect(reverse.newLeaks.count == 1, "the gone kind is new the other way round")
        #expect(reverse.grownLeaks.isEmpty)
    }

    @Test("the comparison round-trips through JSON")
    func codable() throws {
        let diff = ReportDiff(old: Self.old, new: Self.new)
        let data = try JSONEncoder().encode(diff)
        #expect(try JSONDecoder().decode(ReportDiff.self, from: data) == diff)
    }
}
