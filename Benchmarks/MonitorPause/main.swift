// MonitorPause: what a LeakMonitor check costs a running program with LIVE live objects. Records from
// the start, builds a chain of LIVE live objects (held by a global) and a leaked ring of 10, then
// runs CHECKS checks with `checkNow()` while a mutator thread allocates and frees small objects
// without pause and notes the longest time one allocation waited (the pause the check imposed, as
// another thread feels it).
//
// Usage: MonitorPause LIVE [CHECKS]     Prints one line per check, then the mutator's figures.

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

try LeakChecker.startRecording()
liveChain = makeChain(count: live)
makeRing(count: 10)

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

let monitor = LeakMonitor(
    LeakMonitorConfiguration(confirmationDelay: .milliseconds(10), logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() }))
func milliseconds(_ duration: Duration) -> String {
    String(format: "%.1f", Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15)
}
for _ in 0..<checks {
    Thread.sleep(forTimeInterval: 0.2)
    let check = monitor.checkNow()
    print(
        "check \(check.number): live \(check.liveObjects), leaked \(check.leaks.summary.leakedObjects), "
            + "pauses \(check.pauses.map(milliseconds).joined(separator: " + ")) ms, whole check \(milliseconds(check.duration)) ms")
}
stop.store(true, ordering: .relaxed)
Thread.sleep(forTimeInterval: 0.1)
print(String(format: "mutator: longest wait for one allocation %.1f ms", Double(longestWait.load(ordering: .relaxed)) / 1e6))
