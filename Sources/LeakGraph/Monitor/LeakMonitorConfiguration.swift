import Logging

/// How a ``LeakMonitor`` checks and where it reports.
public struct LeakMonitorConfiguration: Sendable {
    /// The time between the end of one check and the start of the next periodic one.
    public var interval: Duration
    /// The wait between a check that found candidates and the confirmation check (see
    /// `LeakReport/confirmed(by:)`). Objects released asynchronously settle meanwhile.
    public var confirmationDelay: Duration
    /// Where each check that found new leaks writes its JSON report (`leakgraph-<time>-<check>.json`);
    /// `nil` writes none. The folder is created when missing.
    public var reportDirectory: String?
    /// How many JSON reports the folder keeps: older `leakgraph-*.json` files are removed (at least 1).
    public var keptReports: Int
    /// Where every check (periodic or asked for) also writes a heap snapshot of its first walk
    /// (`leakgraph-<time>-<check>.lgsnap`, see `LeakChecker/snapshot(program:holders:orphanScan:)`);
    /// `nil` writes none. The folder is created when missing.
    public var snapshotDirectory: String?
    /// How many snapshots ``snapshotDirectory`` keeps: older `leakgraph-*.lgsnap` files are removed
    /// (at least 1).
    public var keptSnapshots: Int
    /// Where the monitor logs: one message per new root cycle (its leak trace), and skipped checks.
    public var logger: Logger
    /// Types and fingerprints never reported; frames recorded per allocation when the monitor
    /// starts the recorder.
    public var options: LeakCheckOptions
    /// The program named in the reports (by default the running executable and its arguments).
    public var program: LeakReport.Program?
    /// How many symbolized creation stacks the monitor keeps between checks (at least 1): a stack
    /// symbolized by one check is not symbolized again by the next while it is kept; past this
    /// number, those used longest ago are dropped.
    public var symbolizedStacksKept: Int
    /// How long a check's walk may take in a forked child (docs/monitoring.md, "The walk in a forked
    /// child"): the heap is frozen only to fork, and the child walks its copy-on-write instant of the
    /// heap while the program runs on. A child that has not finished by then is killed and the heap is
    /// walked frozen instead (`checks.jsonl`: `walk: "frozen"`, `childWalkFailure`). `nil`: every walk
    /// runs frozen, in the program. The orphan scan (``LeakCheckOptions/scansForOrphans``) and a heap
    /// snapshot (``snapshotDirectory``) always walk frozen: they need the live process.
    public var childWalkTimeout: Duration? = .seconds(10)
    /// Whether a check whose walk runs in a forked child (``childWalkTimeout``) also has the child
    /// symbolize the creation stacks its report needs that the monitor has not symbolized before
    /// (docs/monitoring.md, "The first check's memory"): the program then makes no symbolizer and
    /// loads no debug information (`LeakMonitorCheck/stacksSymbolizedInChild`). Under `leakgraph run`
    /// `leakgraph`'s process symbolizes them instead, and with retain histories the program does (it
    /// reads its own code for store sites); a stack whose frames the child did not send is
    /// symbolized in the program. `false`: the program symbolizes them itself.
    public var symbolizesInChild = true

    /// Creates a configuration.
    public init(
        interval: Duration = .seconds(10), confirmationDelay: Duration = .milliseconds(100),
        reportDirectory: String? = nil, keptReports: Int = 20, snapshotDirectory: String? = nil,
        keptSnapshots: Int = 10,
        logger: Logger = Logger(label: "LeakGraph.monitor"), options: LeakCheckOptions = LeakCheckOptions(),
        program: LeakReport.Program? = nil, symbolizedStacksKept: Int = 4096
    ) {
        self.interval = interval
        self.confirmationDelay = confirmationDelay
        self.reportDirectory = reportDirectory
        self.keptReports = keptReports
        self.snapshotDirectory = snapshotDirectory
        self.keptSnapshots = keptSnapshots
        self.logger = logger
        self.options = options
        self.program = program
        self.symbolizedStacksKept = symbolizedStacksKept
    }
}
