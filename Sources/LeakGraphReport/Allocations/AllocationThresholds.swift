import FoundationEssentials

/// Recorded allocation counts per test, which a CI run must not exceed by more than a tolerance: the
/// file `leakgraph test --write-allocation-thresholds FILE` writes and `--allocation-thresholds FILE`
/// checks, like SwiftNIO's allocation limits and package-benchmark's thresholds, with the types and
/// sites each test allocated so a failure can name what grew.
///
/// The file is JSON, versioned by its first key (docs/allocations.md):
///
/// ```json
/// {
///   "leakgraphAllocationThresholds" : 1,
///   "tests" : [
///     { "objects" : 101, "sites" : [ { "key" : "Inbox.Thumbnail @ Thumbnails.swift:37 in …", "objects" : 100 }, … ],
///       "test" : "BudgetXCTests.ThumbnailBudgetTests/testRenderingStaysWithinItsBudget" }
///   ],
///   "tolerancePercent" : 0
/// }
/// ```
public struct AllocationThresholds: Sendable, Codable, Equatable {
    /// One test's recorded counts.
    public struct Test: Sendable, Codable, Equatable {
        /// The test's name (``TestAllocations/test``).
        public var test: String
        /// Objects it made when recorded: its limit, before the tolerance.
        public var objects: Int
        /// What each of its sites made then (``AllocationProfile/Site/key``), the most first.
        public var sites: [SiteCount]

        /// Creates a row.
        public init(test: String, objects: Int, sites: [SiteCount]) {
            self.test = test
            self.objects = objects
            self.sites = sites
        }
    }

    /// Objects made at one site.
    public struct SiteCount: Sendable, Codable, Equatable {
        /// The site's key (``AllocationProfile/Site/key``).
        public var key: String
        /// Objects made there.
        public var objects: Int
    }

    /// The format version this library writes and the newest it reads.
    public static let currentVersion = 1

    /// The file's format version (its key `leakgraphAllocationThresholds`).
    public var version: Int
    /// How far over its recorded count a test may go, in percent of it (rounded up to whole objects).
    public var tolerancePercent: Double
    /// The tests, by name.
    public var tests: [Test]

    /// Creates thresholds.
    public init(version: Int = AllocationThresholds.currentVersion, tolerancePercent: Double = 0, tests: [Test]) {
        self.version = version
        self.tolerancePercent = tolerancePercent
        self.tests = tests.sorted { $0.test < $1.test }
    }

    /// The thresholds of `tests`: each test's objects as its limit, with its sites.
    public init(recording tests: [TestAllocations], tolerancePercent: Double = 0) {
        var byName: [String: Test] = [:]
        for test in tests {
            byName[test.test] = Test(
                test: test.test, objects: test.allocations.objects,
                sites: test.allocations.sites.map { SiteCount(key: $0.key, objects: $0.objects) })
        }
        self.init(tolerancePercent: tolerancePercent, tests: Array(byName.values))
    }

    private enum CodingKeys: String, CodingKey {
        case version = "leakgraphAllocationThresholds"
        case tolerancePercent, tests
    }

    /// The file's text: pretty JSON, keys sorted, tests by name.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ((try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}") + "\n"
    }

    /// Why a thresholds file cannot be read.
    public struct ReadError: Error, Sendable, CustomStringConvertible {
        /// One sentence.
        public var description: String
    }

    /// Reads a thresholds file's contents.
    /// - Throws: ``ReadError``: not JSON, not a thresholds file, a newer version, a field missing.
    public static func parse(_ data: Data) throws(ReadError) -> AllocationThresholds {
        struct Header: Decodable {
            var leakgraphAllocationThresholds: Int?
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data)
        } catch {
            throw ReadError(description: "it is not a JSON object")
        }
        guard let version = header.leakgraphAllocationThresholds else {
            throw ReadError(
                description: "it is not an allocation thresholds file (no \"leakgraphAllocationThresholds\" version)")
        }
        guard version <= currentVersion, version >= 1 else {
            throw ReadError(
                description: "it has version \(version); this leakgraph reads up to version \(currentVersion)")
        }
        do {
            return try JSONDecoder().decode(AllocationThresholds.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ReadError(description: "\"\(key.stringValue)\" is missing\(Self.place(context.codingPath))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ReadError(description: "a value has the wrong type\(Self.place(context.codingPath))")
        } catch {
            throw ReadError(description: "it cannot be read: \(error)")
        }
    }

    /// ` at tests[2].objects` for a coding path.
    private static func place(_ path: [any CodingKey]) -> String {
        guard !path.isEmpty else { return "" }
        return " at " + path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }
    }

    // MARK: Checking

    /// A test over its limit.
    public struct Excess: Sendable, Equatable {
        /// The test.
        public var test: String
        /// The run it was found in, when known.
        public var run: String?
        /// Objects it made now.
        public var objects: Int
        /// Objects recorded.
        public var recorded: Int
        /// The limit: recorded plus the tolerance.
        public var limit: Int
        /// The sites that made more than recorded (new sites included), the most added first:
        /// the site now, and what it made when recorded.
        public var grown: [(site: AllocationProfile.Site, recorded: Int)]

        public static func == (lhs: Excess, rhs: Excess) -> Bool {
            lhs.test == rhs.test && lhs.run == rhs.run && lhs.objects == rhs.objects && lhs.recorded == rhs.recorded
                && lhs.limit == rhs.limit && lhs.grown.map(\.site) == rhs.grown.map(\.site)
                && lhs.grown.map(\.recorded) == rhs.grown.map(\.recorded)
        }
    }

    /// What checking `tests` against these thresholds found.
    public struct Verdict: Sendable, Equatable {
        /// Tests over their limit, by name.
        public var excesses: [Excess]
        /// Tests that ran with no recorded count (they cannot fail), by name.
        public var unrecorded: [String]
        /// Tests checked against a recorded count.
        public var checked: Int
    }

    /// The limit of a test recorded with `objects`: plus ``tolerancePercent`` of it, rounded up.
    public func limit(forRecorded objects: Int, tolerancePercent: Double? = nil) -> Int {
        let percent = max(0, tolerancePercent ?? self.tolerancePercent)
        return objects + Int((Double(objects) * percent / 100).rounded(.up))
    }

    /// Checks `tests` (tests named twice, in two runs, are each checked against the one entry).
    ///
    /// - Parameter tolerancePercent: overrides the file's tolerance.
    public func check(_ tests: [TestAllocations], tolerancePercent: Double? = nil) -> Verdict {
        let recorded = Dictionary(self.tests.map { ($0.test, $0) }, uniquingKeysWith: { first, _ in first })
        var verdict = Verdict(excesses: [], unrecorded: [], checked: 0)
        for test in tests.sorted(by: { $0.test < $1.test }) {
            guard let entry = recorded[test.test] else {
                verdict.unrecorded.append(test.test)
                continue
            }
            verdict.checked += 1
            let limit = limit(forRecorded: entry.objects, tolerancePercent: tolerancePercent)
            guard test.allocations.objects > limit else { continue }
            let before = Dictionary(entry.sites.map { ($0.key, $0.objects) }, uniquingKeysWith: +)
            let grown = test.allocations.sites
                .filter { $0.objects > before[$0.key, default: 0] }
                .map { (site: $0, recorded: before[$0.key, default: 0]) }
                .sorted { ($0.site.objects - $0.recorded, $1.site.key) > ($1.site.objects - $1.recorded, $0.site.key) }
            verdict.excesses.append(
                Excess(
                    test: test.test, run: test.run, objects: test.allocations.objects, recorded: entry.objects,
                    limit: limit,
                    grown: grown))
        }
        return verdict
    }
}

extension AllocationThresholds.Excess {
    /// Sites named per failing test.
    public static let listedSites = 5

    /// `BudgetXCTests.ThumbnailBudgetTests/testRender (XCTest): 201 objects allocated, over its limit of 101
    /// (recorded 101, +0%); grew:` and one line per grown site, `  +100 Thumbnail at Thumbnails.swift:45 in
    /// draft(_:) (0 → 100, new)`.
    public var text: String {
        let over = "over its limit of \(ReportNaming.grouped(limit)) (recorded \(ReportNaming.grouped(recorded)))"
        var lines = [
            "\(test)\(run.map { " (\($0))" } ?? ""): \(ReportNaming.count(objects, "object")) allocated, \(over); grew:"
        ]
        for (site, before) in grown.prefix(Self.listedSites) {
            let note = before == 0 ? ", new" : ""
            lines.append(
                "  +\(ReportNaming.grouped(site.objects - before)) \(ReportNaming.shortName(site.type)) at \(site.siteText) "
                    + "(\(ReportNaming.grouped(before)) → \(ReportNaming.grouped(site.objects))\(note))")
        }
        if grown.count > Self.listedSites {
            lines.append("  … and \(ReportNaming.count(grown.count - Self.listedSites, "more site"))")
        }
        if grown.isEmpty {
            lines.append("  (no one site made more: the objects moved between sites)")
        }
        return lines.joined(separator: "\n")
    }
}
