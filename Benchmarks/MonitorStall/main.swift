// MonitorStall: issue 24's "must show" under `leakgraph run --every 1s` (docs/monitoring.md, "The pause,
// measured"): 1 M live objects, a thread that allocates every millisecond and notes the longest gap
// between two allocations, a ring of three objects leaked every 100 ms; runs SECONDS seconds (5), then
// prints the longest gap. No LeakGraph import: build it alone and run it under leakgraph.
//
//   swiftc -O -g Benchmarks/MonitorStall/main.swift -o /tmp/MonitorStall
//   leakgraph run --every 1s --report-dir reports -- /tmp/MonitorStall 10
import Foundation
import Synchronization

final class Link { var next: Link?; var value = 0 }
final class Small { var value = 0 }
nonisolated(unsafe) var chain: Link?
nonisolated(unsafe) var slot: Small?

@inline(never) func makeChain(_ count: Int) -> Link? {
    var head: Link?
    for i in 0..<count { let l = Link(); l.value = i; l.next = head; head = l }
    return head
}
@inline(never) func leakRing() {
    let a = Link(), b = Link(), c = Link()
    a.next = b; b.next = c; c.next = a
}

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "5") ?? 5
chain = makeChain(1_000_000)
let stop = Atomic(false)
let longest = Atomic(0)
let leaks = Atomic(0)
let allocator = Thread {
    var last = DispatchTime.now().uptimeNanoseconds
    while !stop.load(ordering: .relaxed) {
        usleep(1000)
        let object = Small(); object.value = 1; slot = object
        let now = DispatchTime.now().uptimeNanoseconds
        if Int(now - last) > longest.load(ordering: .relaxed) { longest.store(Int(now - last), ordering: .relaxed) }
        last = now
    }
}
allocator.start()
let leaker = Thread {
    while !stop.load(ordering: .relaxed) { leakRing(); leaks.add(1, ordering: .relaxed); usleep(100_000) }
}
leaker.start()
Thread.sleep(forTimeInterval: seconds)
stop.store(true, ordering: .relaxed)
Thread.sleep(forTimeInterval: 0.2)
FileHandle.standardError.write(
    "longest gap between two 1-ms allocations: \(String(format: "%.1f", Double(longest.load(ordering: .relaxed)) / 1e6)) ms (1 ms of it is the sleep); rings leaked: \(leaks.load(ordering: .relaxed))\n"
        .data(using: .utf8)!)
