#if canImport(Glibc)
    import Glibc
#endif

/// How far a leak check has come: the step it is in (`walk`, `orphan scan`, `leaked objects`,
/// `analysis`, `report`) and, during the walk, the objects done of the total (each object counts twice:
/// read, then its references followed; 0 and 0 in the other steps). Called on the checking thread,
/// while the heap is frozen for the first steps: it must not allocate a tracked object or wait for
/// another thread.
package typealias LeakCheckProgress = (_ step: String, _ done: Int, _ total: Int) -> Void

/// How long each step of a leak check took (``MeasuredLeakCheck/steps``): what `leakgraph run
/// --verbose` prints after the check at exit, and what a slow check is explained by.
///
/// The first four steps run while the heap is frozen (``frozen`` is all of them, with taking and
/// releasing the hook's locks); the others run while the program goes on.
public struct LeakCheckSteps: Sendable, Equatable {
    /// Loading the checker library into the program (`leakgraph run`'s first check; zero otherwise).
    public var loading: Duration = .zero
    /// Taking the hook's locks and the snapshot of the tracked objects' addresses.
    public var snapshot: Duration = .zero
    /// The compact walk of every tracked object (retain counts, strong references).
    public var walk: Duration = .zero
    /// The holder scan behind orphans (zero when it did not run).
    public var orphanScan: Duration = .zero
    /// Finding the leaked objects and reading them again, with paths, into their object graph.
    public var leakedGraph: Duration = .zero
    /// The whole freeze: from before the hook's locks are taken until after they are released.
    public var frozen: Duration = .zero
    /// The analysis of the leaked objects' graph (cycles, suspects, fingerprints).
    public var analysis: Duration = .zero
    /// Symbolizing the creation stacks of the leaked objects.
    public var symbolization: Duration = .zero
    /// Whether the creation stacks were symbolized in `leakgraph run`'s process (`LG_ENV_SYMBOLIZER`:
    /// this process read no debug information for them) rather than in this one.
    public var symbolizedInLeakgraph = false
    /// How many creation stacks a forked child symbolized for this check's report (a monitor's check
    /// whose walk ran in a child, ``walkedInChild``): this process made no symbolizer for them and
    /// read no debug information; ``symbolization`` includes the child's time. 0 when the child symbolized
    /// none (all were cached, it was not asked, or its frames did not come).
    public var symbolizedInChild = 0
    /// Building the report value (symbolization excluded).
    public var report: Duration = .zero
    /// Writing the report's files (`leakgraph run`; zero otherwise).
    public var writing: Duration = .zero
    /// The bytes of the tracked objects alive at the walk (leaked ones included), as recorded.
    public var liveBytes: Int = 0
    /// This process's peak resident memory (`VmHWM`, bytes; 0 when unknown) once the heap was
    /// unfrozen: the walk's peak. Less it, ``peakResidentBytes`` is what the analysis,
    /// symbolization and report added on top (when they went higher).
    public var walkPeakResidentBytes: Int = 0
    /// The check's peak resident memory (the process's `VmHWM` once the check is over, in bytes; 0
    /// when unknown). It includes the program's own peak when that was higher.
    public var peakResidentBytes: Int = 0
    /// Whether the walk ran in a forked child (docs/monitoring.md, "The walk in a forked child"): the
    /// heap was frozen only for the snapshot of the addresses and the fork (``frozen``), and ``walk``
    /// and ``leakedGraph`` ran in the child while the program went on.
    public var walkedInChild = false
    /// How many types' layouts the forked child had to build itself (the parent had not prepared them
    /// after an earlier child's walk); 0 when the walk did not run in a child.
    public var childLayoutsBuilt = 0
    /// How many leaked objects the forked child found as a monitor's previous check had confirmed them,
    /// unchanged, and did not send back: the graph of those came from the previous check.
    public var knownLeftOut = 0
    /// Why a walk asked of a forked child was done frozen instead (the child could not be made, did not
    /// finish in time, or ended without its result); `nil` when none was asked or it succeeded.
    public var childWalkFailure: String?

    /// This process's resident memory now (`VmRSS`) in bytes, 0 when unknown.
    public static func processResidentBytes() -> Int { statusField("VmRSS:") }

    /// A `kB` field of `/proc/self/status` in bytes, 0 when unknown (read with `open` and `read`: no
    /// Foundation).
    static func statusField(_ name: String) -> Int {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let text = String(decoding: bytes.prefix(count), as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }

    /// No step measured yet.
    public init() {}

    /// The steps in the order they ran, with their names (as `--verbose` prints them).
    public var named: [(name: String, duration: Duration)] {
        [
            ("load", loading), ("snapshot", snapshot), ("walk", walk), ("orphan scan", orphanScan),
            ("leaked graph", leakedGraph), ("analysis", analysis), ("symbolization", symbolization),
            ("report", report), ("writing", writing),
        ]
    }

    /// One line: `check of N objects: load 0.031 s, …, symbolization 0.020 s (in leakgraph), …; frozen 0.402 s;
    /// peak RSS 114.2 MB`.
    public func line(objects: Int) -> String {
        let steps = named.filter { $0.name != "load" || $0.duration > .zero }.map {
            "\($0.name) \(Self.seconds($0.duration))"
                + ($0.name == "symbolization" && symbolizedInLeakgraph ? " (in leakgraph)" : "")
        }
        var text = "check of \(objects) objects: " + steps.joined(separator: ", ") + "; frozen \(Self.seconds(frozen))"
        if peakResidentBytes > 0 {
            let tenths = (peakResidentBytes * 10 + 524_288) / 1_048_576
            text += "; peak RSS \(tenths / 10).\(tenths % 10) MB"
        }
        return text
    }

    /// `0.123 s`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = Int((duration.seconds * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
    }

    /// This process's `VmHWM` in bytes, 0 when unknown.
    public static func processPeakResidentBytes() -> Int { statusField("VmHWM:") }
}
