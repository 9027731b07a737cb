#if canImport(Glibc)
    import Glibc
#endif
import FoundationEssentials
import LeakGraphRecording
import LeakGraphReport
import LeakGraphSymbolication
import Synchronization

/// Periodic leak checks in a running process: every ``LeakMonitorConfiguration/interval`` on a
/// thread of its own, and on demand (``checkNow()``, ``requestCheck()``), while the program's threads
/// keep running.
///
/// ```swift
/// let monitor = LeakMonitor(LeakMonitorConfiguration(interval: .seconds(30), reportDirectory: "/var/log/leaks"))
/// try monitor.start()
/// ```
///
/// A leak is reported only with proof, twice: a check finds it leaked, and a confirmation check
/// finds the same objects leaked with the same references and retain counts
/// (`LeakReport/confirmed(by:)`). Each root cycle is reported once, by fingerprint, with the time
/// of the check that first found it. New leaks go to the callback given to ``init(_:onNewLeaks:)``,
/// to the logger (one message per new root cycle, with its leak trace) and, as JSON reports, to
/// ``LeakMonitorConfiguration/reportDirectory`` (the last ``LeakMonitorConfiguration/keptReports``
/// kept). Every check, skipped or not, goes to the observers (``addObserver(_:)``).
///
/// A check freezes the heap only for its walk (``LeakMonitorCheck/pauses``): other threads that
/// allocate a Swift object or free a tracked one wait meanwhile; the analysis, symbolization and
/// reporting run while they go on. A check that cannot run safely is skipped and logged.
public final class LeakMonitor: Sendable {
    /// The configuration the monitor runs with.
    public let configuration: LeakMonitorConfiguration
    let onNewLeaks: (@Sendable (LeakMonitorCheck) -> Void)?
    let wakeup = CheckWakeup()
    let state = Mutex(State())
    /// Held for the length of a check: checks run one at a time.
    let checking = Mutex(())
    /// Creation stacks symbolized by earlier checks (``LeakMonitorConfiguration/symbolizedStacksKept``).
    let symbolizedStacks: SymbolizedStackCache
    /// How a stack missing from ``symbolizedStacks`` is symbolized (tests count the calls).
    let resolveStack: LeakChecker.StackResolver

    /// The mutable state of a monitor.
    struct State {
        var checksRun = 0
        var checksSkipped = 0
        var unconfirmedCycles = 0
        var firstSeen: [String: Date] = [:]
        var lastCheck: LeakMonitorCheck?
        /// The leaks the latest check that ran confirmed (``LeakMonitorCheck/leaks``): a candidate
        /// found again unchanged is proven already.
        var confirmedLeaks: LeakReport?
        /// The graph of those leaks (``confirmedLeaks``): the next check's child leaves out what it finds
        /// of them unchanged.
        var knownLeaks: KnownLeaks?
        var longestPause = Duration.zero
        var observers: [@Sendable (LeakMonitorCheck) -> Void] = []
        var thread: MonitorThread?
        /// The thread running a check (to skip a check asked for from inside one).
        var checkingThread: pthread_t?
    }

    /// A monitor; nothing runs until ``start()`` or ``checkNow()``.
    ///
    /// - Parameters:
    ///   - configuration: how often to check and where to report.
    ///   - onNewLeaks: called, on the checking thread, after each check that found root cycles no
    ///     earlier check reported (``LeakMonitorCheck/newLeaks``).
    public convenience init(
        _ configuration: LeakMonitorConfiguration = LeakMonitorConfiguration(),
        onNewLeaks: (@Sendable (LeakMonitorCheck) -> Void)? = nil
    ) {
        self.init(configuration, onNewLeaks: onNewLeaks, resolveStack: LeakChecker.resolveStack(_:with:executablePath:))
    }

    /// A monitor that symbolizes each creation stack missing from its cache with `resolveStack`.
    init(
        _ configuration: LeakMonitorConfiguration, onNewLeaks: (@Sendable (LeakMonitorCheck) -> Void)?,
        resolveStack: @escaping LeakChecker.StackResolver
    ) {
        self.configuration = configuration
        self.onNewLeaks = onNewLeaks
        self.symbolizedStacks = SymbolizedStackCache(capacity: configuration.symbolizedStacksKept)
        self.resolveStack = resolveStack
    }

    /// Calls `observer`, on the checking thread, after every check, skipped ones included (metrics
    /// use it).
    public func addObserver(_ observer: @escaping @Sendable (LeakMonitorCheck) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Starts recording if it is not running, and the thread that checks every
    /// ``LeakMonitorConfiguration/interval``. Idempotent while running.
    ///
    /// - Throws: `RecorderError` when the hook cannot be installed on this runtime.
    public func start() throws(RecorderError) {
        if !Recorder.isInstalled {
            try Recorder.install(maxFrames: configuration.options.maxFrames ?? Recorder.defaultMaxFrames)
        }
        state.withLock { state in
            guard state.thread == nil else { return }
            state.thread = MonitorThread(monitor: self)
        }
    }

    /// Stops the periodic checks: a check under way finishes first. Returns when the thread has ended
    /// (called from an observer or the callback on the monitor's thread, it returns at once and the
    /// thread ends after the check).
    public func stop() {
        let thread = state.withLock { state in
            defer { state.thread = nil }
            return state.thread
        }
        thread?.stop(waking: wakeup)
    }

    /// Stops the periodic checks (as ``stop()``) without blocking the caller's thread.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            PlainThreads.detach { [self] in
                stop()
                continuation.resume()
            }
        }
    }

    /// Asks the monitor thread for a check now and returns at once; several requests before the check
    /// starts make one check. Async-signal-safe: a signal handler may call it (it posts a semaphore).
    /// Without a running thread (``start()``) nothing happens.
    public func requestCheck() {
        wakeup.post()
    }

    /// Checks now, on the caller's thread, and reports as a periodic check does. When another check
    /// is under way, waits for it first; called from inside a check (an observer or the callback), it
    /// is skipped.
    ///
    /// Blocks for the length of a check: two walks of the heap when there are candidates, separated
    /// by ``LeakMonitorConfiguration/confirmationDelay``.
    @discardableResult
    public func checkNow() -> LeakMonitorCheck {
        let me = pthread_self()
        let nested = state.withLock { state in state.checkingThread.map { pthread_equal($0, me) != 0 } ?? false }
        guard !nested else {
            return finish(skipped: "a check was asked for from inside a check", date: Date())
        }
        return checking.withLock { _ in
            state.withLock { $0.checkingThread = me }
            defer { state.withLock { $0.checkingThread = nil } }
            let check = runCheck()
            publish(check)
            return check
        }
    }

    /// Counters over the monitor's life.
    public var statistics: LeakMonitorStatistics {
        state.withLock { state in
            LeakMonitorStatistics(
                checksRun: state.checksRun, checksSkipped: state.checksSkipped,
                rootCyclesReported: state.firstSeen.count,
                unconfirmedCycles: state.unconfirmedCycles,
                longestPause: state.longestPause, lastCheck: state.lastCheck)
        }
    }

    /// When the root cycle with `fingerprint` (see ``key(of:in:)``) was first found, or `nil` if never.
    public func firstSeen(_ fingerprint: String) -> Date? {
        state.withLock { $0.firstSeen[fingerprint] }
    }

    /// The key a root cycle is reported once by: its fingerprint, or (without one) its members'
    /// addresses.
    public static func key(of cycle: LeakReport.Cycle, in report: LeakReport) -> String {
        if let fingerprint = cycle.fingerprint { return fingerprint }
        let addresses = cycle.members.compactMap { report.leaks.indices.contains($0) ? report.leaks[$0].address : nil }
        return "objects " + addresses.sorted().joined(separator: ",")
    }
}

/// Counters of a ``LeakMonitor`` (``LeakMonitor/statistics``).
public struct LeakMonitorStatistics: Sendable {
    /// Checks that ran.
    public var checksRun: Int
    /// Checks skipped because they could not run safely.
    public var checksSkipped: Int
    /// Root cycles reported (each once).
    public var rootCyclesReported: Int
    /// Candidate root cycles the confirmation checks did not confirm (never reported).
    public var unconfirmedCycles: Int
    /// The longest freeze of any check.
    public var longestPause: Duration
    /// The latest check.
    public var lastCheck: LeakMonitorCheck?
}
