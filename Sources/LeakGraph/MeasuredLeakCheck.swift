import LeakGraphReport

/// A leak check's report and the pause it imposed (``LeakChecker/measuredCheck(program:executablePath:liveTypes:orphanScan:knownOrphans:)``).
public struct MeasuredLeakCheck: Sendable {
    /// The report of the check.
    public var report: LeakReport
    /// How long the heap was frozen: other threads that allocated a Swift object or freed a tracked
    /// one waited at most this long. The rest of the check (analysis of the leaked objects,
    /// symbolization, building the report) runs while they go on.
    public var pause: Duration
    /// How long each step of the check took (``LeakCheckSteps/frozen`` is ``pause``).
    public var steps: LeakCheckSteps
    /// The graph of the leaked objects the report was made from, its addresses ``KnownLeaks/stored(_:)``
    /// (a monitor keeps its confirmed part for the next check, and meanwhile its confirmation may scan
    /// this process for holders). `nil` unless asked for.
    var storedLeakedGraph: ObjectGraph?
    /// The addresses of the known leaks a forked child found unchanged and left out, ``KnownLeaks/stored(_:)``.
    var leftOutKnown: Set<UInt64> = []

    /// Creates a measured check.
    public init(report: LeakReport, pause: Duration, steps: LeakCheckSteps = LeakCheckSteps()) {
        self.report = report
        self.pause = pause
        self.steps = steps
    }
}
