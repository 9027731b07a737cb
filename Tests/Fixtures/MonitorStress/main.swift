// Stress: a LeakMonitor checks every 30 ms (and on request) while 8 threads allocate, link, unlink and
// drop objects — rings made and broken, cycles made and broken, dictionaries mutated, closures
// replaced — for a bounded time. Four leaks are made at known moments (three on the main thread, one
// on a churning thread). Every new root cycle the monitor reports is printed on one line:
//
//     new <check> <fingerprint> <member types, sorted, joined by " + ">
//
// then `checks <run> skipped <skipped>`. Each of the four leaks must be reported exactly once and
// nothing else ever. Argument: the churn's length in milliseconds (default 2,500).

import Foundation
import LeakGraph
import Logging
import Synchronization

// MARK: - Churn: nothing here leaks

final class Node {
    var next: Node?
    var values: [Int] = []
}

final class Pair {
    var other: Pair?
}

final class Owner {
    var items: [String: Node] = [:]
    var handler: (() -> Int)?
    weak var previous: Owner?
}

@inline(never)
func churn(thread: Int, iteration: Int, owner: inout Owner) {
    // A ring made and broken.
    let first = Node()
    var last = first
    for _ in 0..<3 {
        let node = Node()
        last.next = node
        last = node
    }
    last.next = first
    last.next = nil
    // A two-object cycle made and broken.
    let a = Pair()
    let b = Pair()
    a.other = b
    b.other = a
    b.other = nil
    // A dictionary mutated.
    owner.items["k\(iteration % 16)"] = first
    owner.items.removeValue(forKey: "k\((iteration + 7) % 16)")
    // Closures replaced: capturing a node strongly, the owner weakly.
    if iteration % 2 == 0 {
        let captured = Node()
        captured.values = [iteration, thread]
        owner.handler = { captured.values.count }
    } else {
        owner.handler = { [weak owner] in owner?.items.count ?? 0 }
    }
    // Now and then a new owner, linked weakly to the old one.
    if iteration % 64 == 0 {
        let replacement = Owner()
        replacement.previous = owner
        owner = replacement
    }
}

// MARK: - Leaks made at known moments

final class AlphaOwner { var partner: AlphaPartner? }
final class AlphaPartner { var owner: AlphaOwner? }

final class BetaController {
    var count = 0
    var onEvent: (() -> Void)?
}

final class GammaHub { var children: [String: GammaChild] = [:] }
final class GammaChild { var hub: GammaHub? }

final class DeltaOwner { var partner: DeltaPartner? }
final class DeltaPartner { var owner: DeltaOwner? }

@inline(never) func leakAlpha() {
    let owner = AlphaOwner()
    owner.partner = AlphaPartner()
    owner.partner?.owner = owner
}

@inline(never) func leakBeta() {
    let controller = BetaController()
    controller.onEvent = { controller.count += 1 }
}

@inline(never) func leakGamma() {
    let hub = GammaHub()
    let child = GammaChild()
    hub.children["x"] = child
    child.hub = hub
}

@inline(never) func leakDelta() {
    let owner = DeltaOwner()
    owner.partner = DeltaPartner()
    owner.partner?.owner = owner
}

// MARK: - The run

let churnMilliseconds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 2_500
let printLock = Mutex(())

let monitor = LeakMonitor(
    LeakMonitorConfiguration(
        interval: .milliseconds(30), confirmationDelay: .milliseconds(10),
        logger: Logger(label: "stress") { _ in SwiftLogNoOpLogHandler() })
) { check in
    let report = check.newLeaks
    for cycle in report.cycles {
        let key = LeakMonitor.key(of: cycle, in: report)
        guard check.newFingerprints.contains(key) else { continue }
        let types = Set(cycle.members.map { report.leaks[$0].type }).sorted().joined(separator: " + ")
        printLock.withLock { _ in print("new \(check.number) \(key) \(types)") }
    }
}
do {
    try monitor.start()
} catch {
    print("cannot start: \(error)")
    exit(2)
}

let stop = Atomic(false)
let deltaMade = Atomic(false)
let start = Date()
var threads: [Thread] = []
let finished = DispatchGroup()
for index in 0..<8 {
    finished.enter()
    let thread = Thread {
        var owner = Owner()
        var iteration = 0
        while !stop.load(ordering: .relaxed) {
            churn(thread: index, iteration: iteration, owner: &owner)
            iteration += 1
            if index == 3, Date().timeIntervalSince(start) > Double(churnMilliseconds) * 0.8 / 1000,
                !deltaMade.exchange(true, ordering: .relaxed) {
                leakDelta()
                monitor.requestCheck()
            }
        }
        finished.leave()
    }
    thread.start()
    threads.append(thread)
}

for (fraction, leak) in [(0.2, leakAlpha), (0.4, leakBeta), (0.6, leakGamma)] {
    Thread.sleep(until: start.addingTimeInterval(Double(churnMilliseconds) * fraction / 1000))
    leak()
    monitor.requestCheck()
}
Thread.sleep(until: start.addingTimeInterval(Double(churnMilliseconds) / 1000))
stop.store(true, ordering: .relaxed)
finished.wait()
monitor.stop()
monitor.checkNow()
let statistics = monitor.statistics
print("checks \(statistics.checksRun) skipped \(statistics.checksSkipped) unconfirmed \(statistics.unconfirmedCycles) longest-pause \(statistics.longestPause)")
