// A program that runs its own LeakMonitor (no `leakgraph run`: nothing to send creation stacks to),
// with periodic checks every 100 ms, and leaks one known cycle (Owner ⇄ Partner, made on a Foundation
// `Thread`, as a server's request handler would) before the first check:
//
//   OwnMonitor WHERE leak|clean FOLDER [CHECKS]
//
// WHERE is where the checks' creation stacks are symbolized: `child` (in the forked child of each
// check's walk, the default: LeakMonitorConfiguration.symbolizesInChild) or `program` (a Symbolizer
// in this process, as before). `clean` breaks the pair's cycle before dropping it: nothing leaked.
// The monitor writes its reports into FOLDER; after CHECKS periodic checks (default 3) the program
// prints, and exits with 0:
//
//   checks N walk child|frozen[,…] symbolizedInChild S perCheck S1,S2,…
//   symbolizers M          (Symbolizers this process made: 0 when every stack was symbolized elsewhere)
//   first check: resident before B, after A, peak P bytes; anonymous before C, after D bytes; the record's peak R bytes
//                          (VmRSS just before the monitor starts, the pair made; VmRSS and VmHWM once the
//                          first check has written its reports; RssAnon: the part that is no mapped file;
//                          LeakMonitorCheck.peakResidentBytes: VmHWM when the check ended, before its reports)
//
// Also the program of `scripts/bench-first-check` (built with -O against a release LeakGraph).
import Foundation
import LeakGraph
import LeakGraphSymbolication
import Logging
import Synchronization

final class Owner {
    var partner: Partner?
}

final class Partner {
    var owner: Owner?
}

/// Objects a run with a thousand arguments would keep (never): passing each new object here keeps -O
/// from removing the allocations of a pair nothing else reads.
nonisolated(unsafe) var escaped: [AnyObject] = []

@inline(never)
func escape(_ object: AnyObject) {
    if CommandLine.arguments.count > 1000 { escaped.append(object) }
}

@inline(never)
func makePair(leaked: Bool) {
    let owner = Owner()
    let partner = Partner()
    escape(owner)
    escape(partner)
    owner.partner = partner
    partner.owner = owner
    if !leaked { partner.owner = nil }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, ["child", "program"].contains(arguments[0]), ["leak", "clean"].contains(arguments[1])
else {
    print("usage: OwnMonitor child|program leak|clean FOLDER [CHECKS]")
    exit(2)
}
let checksWanted = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3

var configuration = LeakMonitorConfiguration(
    interval: .milliseconds(100), confirmationDelay: .milliseconds(10), reportDirectory: arguments[2],
    logger: Logger(label: "own-monitor") { _ in SwiftLogNoOpLogHandler() })
configuration.symbolizesInChild = arguments[0] == "child"
/// Fields of `/proc/self/status` in bytes (`VmRSS`, `RssAnon`, `VmHWM`), 0 when unknown.
@Sendable func memory() -> (resident: Int, anonymous: Int, peak: Int) {
    let text = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    func field(_ name: String) -> Int {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return (Int(line.filter(\.isNumber)) ?? 0) * 1024
    }
    return (field("VmRSS"), field("RssAnon"), field("VmHWM"))
}

let monitor = LeakMonitor(configuration)
let checks = Mutex<[LeakMonitorCheck]>([])
let afterFirst = Mutex((resident: 0, anonymous: 0, peak: 0))
monitor.addObserver { check in
    let count = checks.withLock {
        $0.append(check)
        return $0.count
    }
    // Once the first check has written its reports.
    if count == 1 { afterFirst.withLock { $0 = memory() } }
}
var before = (resident: 0, anonymous: 0, peak: 0)
do {
    // Recording first: the pair is made before the monitor's first check.
    try LeakChecker.startRecording()
    let made = DispatchSemaphore(value: 0)
    Thread {
        makePair(leaked: arguments[1] == "leak")
        made.signal()
    }.start()
    made.wait()
    before = memory()
    try monitor.start()
} catch {
    print("cannot start: \(error)")
    exit(2)
}
for _ in 0..<600 where checks.withLock({ $0.count }) < checksWanted {
    Thread.sleep(forTimeInterval: 0.05)
}
monitor.stop()
let seen = checks.withLock { $0 }
guard !seen.isEmpty else {
    print("no check ran")
    exit(3)
}
let walks = seen.map { $0.walk?.rawValue ?? "-" }.joined(separator: ",")
let counts = seen.map(\.stacksSymbolizedInChild)
print(
    "checks \(seen.count) walk \(walks) symbolizedInChild \(counts.reduce(0, +)) "
        + "perCheck \(counts.map(String.init).joined(separator: ","))")
print("symbolizers \(Symbolizer.instancesMade)")
let after = afterFirst.withLock { $0 }
print(
    "first check: resident before \(before.resident), after \(after.resident), peak \(after.peak) bytes; "
        + "anonymous before \(before.anonymous), after \(after.anonymous) bytes; "
        + "the record's peak \(seen[0].peakResidentBytes) bytes")
exit(0)
