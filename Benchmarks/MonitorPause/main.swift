// MonitorPause: what a LeakMonitor check costs a running program with LIVE live objects. Records from
// the start, builds a chain of LIVE live objects (held by a global), then runs CHECKS checks with
// `checkNow()` while a mutator thread allocates and frees small objects without pause and notes the
// longest time one allocation waited (the pause the check imposed, as another thread feels it).
// MODE says what leaks:
//   known    a ring of 10 leaked once, before the first check (every later check finds it again)
//   none     nothing
//   ongoing  a ring of 10 leaked every 100 ms while the checks run (every check has new candidates)
//   plain    nothing, and no check either: the same time with the mutator alone (its longest wait
//            without LeakGraph's checks: the scheduler's, the baseline of the ratios)
//
// WALK says where each check's walk runs: `child` (a forked copy of the process, the heap frozen only
// for the fork: LeakMonitorConfiguration.childWalkTimeout, the default) or `frozen` (in the program,
// the heap frozen for the whole walk).
//
// Usage: MonitorPause LIVE [CHECKS] [MODE] [WALK]     Prints one line per check, then a summary line.

import Foundation
import LeakGraph
import Logging
import Synchronization

final class Link {
    var next: Link?
    var value = 0
}

final class Small {
    var value = 0
}

nonisolated(unsafe) var liveChain: Link?
/// Where the mutator stores each new object, so that it is really allocated (not promoted to the
/// stack) and the previous one freed.
nonisolated(unsafe) var mutatorSlot: Small?

@inline(never)
func makeChain(count: Int) -> Link? {
    var head: Link?
    for index in 0..<count {
        let link = Link()
        link.value = index
        link.next = head
        head = link
    }
    return head
}

@inline(never)
func makeRing(count: Int) {
    guard let first = makeChain(count: count) else { return }
    var last = first
    while let next = last.next { last = next }
    last.next = first
}

let arguments = CommandLine.arguments.dropFirst()
guard let live = arguments.first.flatMap({ Int($0) }) else {
    print("usage: MonitorPause LIVE [CHECKS]")
    exit(64)
}
let checks = arguments.dropFirst().first.flatMap { Int($0) } ?? 5
let mode = arguments.dropFirst(2).first ?? "known"
let walk = arguments.dropFirst(3).first ?? "child"
guard ["known", "none", "ongoing", "plain"].contains(mode), ["child", "frozen"].contains(walk) else {
    print("usage: MonitorPause LIVE [CHECKS] [known|none|ongoing|plain] [child|frozen]")
    exit(64)
}

try LeakChecker.startRecording()
liveChain = makeChain(count: live)
if mode == "known" { makeRing(count: 10) }

let stop = Atomic(false)
let longestWait = Atomic(0)  // nanoseconds
let allocations = Atomic(0)
let mutator = Thread {
    var last = DispatchTime.now().uptimeNanoseconds
    var count = 0
    while !stop.load(ordering: .relaxed) {
        let object = Small()
        object.value = count
        mutatorSlot = object
        count += 1
        let now = DispatchTime.now().uptimeNanoseconds
        if now - last > longestWait.load(ordering: .relaxed) { longestWait.store(Int(now - last), ordering: .relaxed) }
        last = now
    }
    allocations.store(count, ordering: .relaxed)
}
mutator.start()
if mode == "ongoing" {
    Thread {
        while !stop.load(ordering: .relaxed) {
            makeRing(count: 10)
            Thread.sleep(forTimeInterval: 0.1)
        }
    }.start()
}

var configuration = LeakMonitorConfiguration(
    confirmationDelay: .milliseconds(10), logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
if walk == "frozen" { configuration.childWalkTimeout = nil }
let monitor = LeakMonitor(configuration)
func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f", Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
}
var firstFreezes: [Double] = []
var secondFreezes: [Double] = []
var wholeChecks: [Double] = []
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
for _ in 0..<checks {
    Thread.sleep(forTimeInterval: 0.2)
    if mode == "plain" {
        Thread.sleep(forTimeInterval: 0.2)
        continue
    }
    let waitedBefore = longestWait.exchange(0, ordering: .relaxed)
    let check = monitor.checkNow()
    let waitedInCheck = longestWait.load(ordering: .relaxed)
    longestWait.store(max(waitedBefore, waitedInCheck), ordering: .relaxed)
    firstFreezes.append(seconds(check.pauses.first ?? .zero))
    if check.pauses.count > 1 { secondFreezes.append(seconds(check.pauses[1])) }
    wholeChecks.append(seconds(check.duration))
    print(
        "check \(check.number): live \(check.liveObjects), leaked \(check.leaks.summary.leakedObjects), "
            + "pauses \(check.pauses.map(milliseconds).joined(separator: " + ")) ms (\(check.confirmation.rawValue)), "
            + "walk \(check.walk?.rawValue ?? "-")\(check.childWalkFailure.map { " (\($0))" } ?? ""), "
            + "whole check \(milliseconds(check.duration)) ms, longest wait in it \(String(format: "%.1f", Double(waitedInCheck) / 1e6)) ms, RSS before \(check.residentBytesBefore / 1_048_576) MB, "
            + "peak after the walk \(check.walkPeakResidentBytes / 1_048_576) MB, at the end \(check.peakResidentBytes / 1_048_576) MB"
    )
}
stop.store(true, ordering: .relaxed)
Thread.sleep(forTimeInterval: 0.1)
func median(_ values: [Double]) -> String {
    guard !values.isEmpty else { return "-" }
    return String(format: "%.1f", values.sorted()[values.count / 2] * 1e3)
}
print(
    String(
        format:
            "summary %@ %@ %d: first freeze %@ ms, second freeze %@ ms (%d of %d checks), whole check %@ ms, longest wait %.1f ms",
        mode, mode == "plain" ? "-" : walk, live, median(firstFreezes), median(secondFreezes), secondFreezes.count,
        wholeChecks.count,
        median(wholeChecks),
        Double(longestWait.load(ordering: .relaxed)) / 1e6))
