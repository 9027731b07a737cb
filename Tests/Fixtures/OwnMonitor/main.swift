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
//   checks N walk child|frozen[,…] symbolizedInChild S
//   symbolizers M          (Symbolizers this process made: 0 when every stack was symbolized elsewhere)
//   first check: resident before B, after A, peak P bytes
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
let monitor = LeakMonitor(configuration)
let checks = Mutex<[LeakMonitorCheck]>([])
let residentAfterFirst = Atomic(0)
monitor.addObserver { check in
    let count = checks.withLock {
        $0.append(check)
        return $0.count
    }
    if count == 1 { residentAfterFirst.store(LeakCheckSteps.processResidentBytes(), ordering: .relaxed) }
}
do {
    // Recording first: the pair is made before the monitor's first check.
    try LeakChecker.startRecording()
    let made = DispatchSemaphore(value: 0)
    Thread {
        makePair(leaked: arguments[1] == "leak")
        made.signal()
    }.start()
    made.wait()
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
guard let first = seen.first else {
    print("no check ran")
    exit(3)
}
let walks = seen.map { $0.walk?.rawValue ?? "-" }.joined(separator: ",")
print("checks \(seen.count) walk \(walks) symbolizedInChild \(seen.map(\.stacksSymbolizedInChild).reduce(0, +))")
print("symbolizers \(Symbolizer.instancesMade)")
print(
    "first check: resident before \(first.residentBytesBefore), after \(residentAfterFirst.load(ordering: .relaxed)), "
        + "peak \(first.peakResidentBytes) bytes")
exit(0)
