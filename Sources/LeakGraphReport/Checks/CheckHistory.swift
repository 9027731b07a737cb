import FoundationEssentials

/// The checks of a periodic run read back from its report folder's `checks.jsonl` (and the rotated
/// `checks.jsonl.1` before it): the series `leakgraph report FOLDER` draws — live objects, leaked
/// objects, pauses — and each leak's count over time, with its rate.
public struct CheckHistory: Sendable, Equatable {
    /// Every check, oldest first (skipped ones included).
    public var records: [LeakMonitorCheckRecord]
    /// Lines that could not be read (a line cut short by a full disk or a killed program), by file and
    /// line number: left out of the series, and said in the text.
    public var unreadLines: [String]

    /// The name of the record file in a report folder.
    public static let fileName = "checks.jsonl"

    /// A history of `records` (oldest first).
    public init(records: [LeakMonitorCheckRecord], unreadLines: [String] = []) {
        self.records = records
        self.unreadLines = unreadLines
    }

    /// Reads `folder/checks.jsonl.1` (when present) and `folder/checks.jsonl`. Returns `nil` when
    /// neither exists.
    /// - Throws: ``CheckHistoryError`` when a file exists but cannot be read, or no line of it is a record.
    public static func read(folder: String) throws(CheckHistoryError) -> CheckHistory? {
        let base = folder.hasSuffix("/") ? folder + fileName : folder + "/" + fileName
        let files = [base + ".1", base].filter { FileManager.default.fileExists(atPath: $0) }
        guard !files.isEmpty else { return nil }
        var history = CheckHistory(records: [])
        for file in files {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CheckHistoryError(path: file, reason: "cannot be read")
            }
            history.append(lines: data, file: file)
        }
        if history.records.isEmpty, !history.unreadLines.isEmpty {
            throw CheckHistoryError(path: files.last!, reason: "no line is a LeakGraph check record")
        }
        return history
    }

    /// Adds the records of `data` (one JSON object per line); a line that is not one is named in
    /// ``unreadLines``.
    mutating func append(lines data: Data, file: String) {
        let decoder = JSONDecoder()
        var number = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else { continue }
            if let record = try? decoder.decode(LeakMonitorCheckRecord.self, from: Data(line)) {
                records.append(record)
            } else {
                unreadLines.append("\(file):\(number)")
            }
        }
    }

    /// The checks that ran (not skipped).
    public var ran: [LeakMonitorCheckRecord] { records.filter { $0.skipped == nil } }

    /// Seconds from the first check to `record` (0 when a time cannot be read).
    public func elapsed(_ record: LeakMonitorCheckRecord) -> Double {
        guard let first = records.first.flatMap({ Self.date($0.time) }), let date = Self.date(record.time) else {
            return 0
        }
        return date.timeIntervalSince(first)
    }

    /// The time of a record (`time`, ISO 8601), or `nil` when it is not one.
    public static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// One leak's count at every check: `nil` where a check did not find it (not yet, or skipped).
    public struct LeakSeries: Sendable, Equatable {
        /// The leak's fingerprint.
        public var fingerprint: String
        /// The type of its cycle's first member.
        public var type: String
        /// When a check first confirmed it (ISO 8601), as its newest record says.
        public var firstSeen: String?
        /// Its root cycles at each check of ``CheckHistory/records`` (`nil`: not found by that check).
        public var cycles: [Int?]
        /// Its objects at each check.
        public var objects: [Int?]
        /// Its bytes at each check.
        public var bytes: [Int?]
        /// The newest count of cycles, objects and bytes.
        public var last: (cycles: Int, objects: Int, bytes: Int) {
            (
                cycles.last { $0 != nil }.flatMap { $0 } ?? 0, objects.last { $0 != nil }.flatMap { $0 } ?? 0,
                bytes.last { $0 != nil }.flatMap { $0 } ?? 0
            )
        }

        public static func == (lhs: LeakSeries, rhs: LeakSeries) -> Bool {
            (lhs.fingerprint, lhs.type, lhs.firstSeen) == (rhs.fingerprint, rhs.type, rhs.firstSeen)
                && lhs.cycles == rhs.cycles && lhs.objects == rhs.objects && lhs.bytes == rhs.bytes
        }
    }

    /// Every leak the checks found, the most objects at its newest check first.
    public var leakSeries: [LeakSeries] {
        var byKey: [String: LeakSeries] = [:]
        for (index, record) in records.enumerated() {
            for leak in record.leaks {
                var series =
                    byKey[leak.fingerprint]
                    ?? LeakSeries(
                        fingerprint: leak.fingerprint, type: leak.type, firstSeen: leak.firstSeen,
                        cycles: Array(repeating: nil, count: records.count),
                        objects: Array(repeating: nil, count: records.count),
                        bytes: Array(repeating: nil, count: records.count))
                series.cycles[index] = leak.cycles
                series.objects[index] = leak.objects
                series.bytes[index] = leak.bytes
                if leak.firstSeen != nil { series.firstSeen = leak.firstSeen }
                byKey[leak.fingerprint] = series
            }
        }
        return byKey.values.sorted { ($0.last.objects, $1.fingerprint) > ($1.last.objects, $0.fingerprint) }
    }

    /// How fast a leak grows: its root cycles per minute from the first check that found it to the
    /// newest, or `nil` when fewer than two checks found it or no time passed between them.
    public func cyclesPerMinute(_ series: LeakSeries) -> Double? {
        let found = series.cycles.indices.filter { series.cycles[$0] != nil }
        guard let first = found.first, let last = found.last, first != last,
            let from = Self.date(records[first].time), let to = Self.date(records[last].time)
        else { return nil }
        let minutes = to.timeIntervalSince(from) / 60
        guard minutes > 0 else { return nil }
        return Double(series.cycles[last]! - series.cycles[first]!) / minutes
    }
}

/// `checks.jsonl` could not be read: one line for the `leakgraph` error message.
public struct CheckHistoryError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// Why, in a few words.
    public var reason: String

    public var description: String { "cannot read \(path): \(reason)" }
}
