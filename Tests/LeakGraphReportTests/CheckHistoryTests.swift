import Foundation
import LeakGraphReport
import LeakGraphRender
import Testing

/// `CheckHistory`: a periodic run's `checks.jsonl` read back (the rotated file first, lines that are
/// not records named), each leak's series and rate, and the text and HTML `leakgraph report FOLDER`
/// draws from it.
@Suite struct CheckHistoryTests {
    /// A record at `second` seconds past 01:00:00 with `cycles` cycles of one leak (none when 0).
    static func record(_ check: Int, second: Int, live: Int, cycles: Int, skipped: String? = nil) -> LeakMonitorCheckRecord {
        LeakMonitorCheckRecord(
            check: check, time: "2026-11-26T01:00:\(second < 10 ? "0" : "")\(second).000Z", skipped: skipped,
            pauseSeconds: 0.004, pausesSeconds: [0.004], durationSeconds: 0.25, liveObjects: live,
            liveBytes: live * 24, leakedObjects: cycles * 2, leakedBytes: cycles * 48, rootCycles: cycles,
            newRootCycles: check == 2 ? cycles : 0, peakResidentBytes: 40_000_000,
            leaks: cycles == 0
                ? []
                : [.init(fingerprint: "87663ba28967e68b", type: "App.Owner", cycles: cycles, objects: cycles * 2,
                         bytes: cycles * 48, firstSeen: "2026-11-26T01:00:02.000Z")])
    }

    /// A folder with `older` in `checks.jsonl.1` and `newer` (plus `extra`) in `checks.jsonl`.
    static func folder(older: [LeakMonitorCheckRecord], newer: [LeakMonitorCheckRecord], extra: String = "") throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func lines(_ records: [LeakMonitorCheckRecord]) throws -> String {
            try records.map { try $0.jsonLine() + "\n" }.joined()
        }
        if !older.isEmpty {
            try lines(older).write(to: folder.appendingPathComponent("checks.jsonl.1"), atomically: true, encoding: .utf8)
        }
        try (lines(newer) + extra).write(to: folder.appendingPathComponent("checks.jsonl"), atomically: true, encoding: .utf8)
        return folder.path
    }

    @Test("the rotated file comes first; a line that is not a record is named, not read")
    func readsRotatedThenCurrent() throws {
        let folder = try Self.folder(
            older: [Self.record(1, second: 0, live: 100, cycles: 0), Self.record(2, second: 2, live: 110, cycles: 3)],
            newer: [Self.record(3, second: 4, live: 120, cycles: 6)], extra: "{\"check\": 4, \"ti")
        let history = try #require(try CheckHistory.read(folder: folder))
        #expect(history.records.map(\.check) == [1, 2, 3])
        #expect(history.unreadLines == [folder + "/checks.jsonl:2"])
        #expect(history.elapsed(history.records[2]) == 4)
    }

    @Test("no checks.jsonl: nil; a file of which no line is a record: an error naming it")
    func missingAndForeign() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("check-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(try CheckHistory.read(folder: empty.path) == nil)
        try "not json\n".write(to: empty.appendingPathComponent("checks.jsonl"), atomically: true, encoding: .utf8)
        #expect(throws: CheckHistoryError.self) { try CheckHistory.read(folder: empty.path) }
    }

    @Test("a leak's series has a count where a check found it, and its rate is per minute between them")
    func leakSeriesAndRate() throws {
        let history = CheckHistory(records: [
            Self.record(1, second: 0, live: 100, cycles: 0), Self.record(2, second: 2, live: 110, cycles: 3),
            Self.record(3, second: 4, live: 0, cycles: 0, skipped: "recording is not running"),
            Self.record(4, second: 8, live: 130, cycles: 9),
        ])
        let series = try #require(history.leakSeries.first)
        #expect(history.leakSeries.count == 1)
        #expect(series.cycles == [nil, 3, nil, 9])
        #expect(series.last.cycles == 9 && series.last.objects == 18 && series.last.bytes == 432)
        // 6 more cycles in 6 seconds: 60 a minute.
        #expect(history.cyclesPerMinute(series) == 60)
        #expect(history.ran.count == 3)
    }

    @Test("a leak found by one check only has no rate")
    func oneCheckNoRate() throws {
        let history = CheckHistory(records: [Self.record(1, second: 0, live: 100, cycles: 4)])
        #expect(history.cyclesPerMinute(try #require(history.leakSeries.first)) == nil)
    }

    @Test("sparklines run from ▁ (0) to █ (the largest); · where nothing was measured; wide series are folded")
    func sparklines() {
        #expect(CheckHistoryText.sparkline([0, 6, 14]) == "▁▄█")
        #expect(CheckHistoryText.sparkline([nil, 1, nil]) == "·█·")
        #expect(CheckHistoryText.sparkline([0, 0]) == "▁▁")
        let wide = CheckHistoryText.sparkline((0..<480).map { $0 })
        #expect(wide.count == CheckHistoryText.width)
        #expect(wide.first == "▁" && wide.last == "█")
    }

    @Test("the text: a line per series with first, newest and largest, then each leak with its rate")
    func text() {
        let history = CheckHistory(records: [
            Self.record(1, second: 0, live: 100, cycles: 0), Self.record(2, second: 2, live: 110, cycles: 3),
            Self.record(3, second: 8, live: 1_300, cycles: 9),
        ])
        let lines = CheckHistoryText.render(history, folder: "reports").split(separator: "\n").map(String.init)
        #expect(lines[0] == "reports/checks.jsonl: 3 checks, 01:00:00 → 01:00:08 UTC (8 s)")
        #expect(lines.contains { $0.hasPrefix("live objects") && $0.contains("100") && $0.hasSuffix("1,300  ▂▂█") })
        #expect(lines.contains { $0.hasPrefix("leaked objects") && $0.hasSuffix("▁▃█") })
        #expect(
            lines.contains(
                "  Owner  87663ba28967e68b  now 9 cycles, 18 objects, 432 bytes, +60 cycles a minute; first seen 01:00:02"))
    }

    @Test("the HTML page: a chart per series and per leak, type names escaped")
    func html() {
        var record = Self.record(1, second: 0, live: 100, cycles: 2)
        record.leaks[0].type = "App.Box<App.Owner>"
        let page = CheckHistoryHTML.render(
            CheckHistory(records: [record, Self.record(2, second: 3, live: 120, cycles: 4)]), folder: "reports")
        #expect(page.components(separatedBy: "<polyline").count - 1 == 5)
        #expect(page.contains("Box&lt;Owner&gt;") || page.contains("Box&lt;App.Owner&gt;"))
        #expect(!page.contains("<script"))
    }
}
