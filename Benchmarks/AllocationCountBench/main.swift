// AllocationCountBench: what allocation counts cost the allocation hook, side by side in one process.
//
// Usage: AllocationCountBench WORKLOAD COUNT
//   WORKLOAD  free  (allocate, then free at once: each object replaces the previous one)
//             churn (each object lives for the next 10,000 allocations)
//             sites (as free, from 64 call sites of 4 types: a count table of 256 entries)
// One process measures, in this order, ns per allocation of the workload (each the fastest of three
// measurements; scope and counted alternate, track is measured before and after them):
//   plain           no hook
//   track           the hook recording (16 frames), no scope open
//   scope           a scope open and current (what a leak check in a test pays)
//   counted         the same scope counted (what a budget or countingAllocations pays)
//   profile         the scope closed, the whole-process profile running (leakgraph run --allocations)
//   profile+counted both
// and prints one line: WORKLOAD PLAIN TRACK SCOPE COUNTED PROFILE PROFILE_COUNTED.
// Built and run by scripts/bench-allocations; not part of the package's targets.

import CLeakGraphHook

#if canImport(Glibc)
    import Glibc
#endif

final class Small {
    var value = 0
}
final class Small2 { var value = 0 }
final class Small3 { var value = 0 }
final class Small4 { var value = 0 }

nonisolated(unsafe) var sink: AnyObject?
nonisolated(unsafe) var ring = [Small?](repeating: nil, count: 10_000)
/// The token the scope source answers with (0: none).
nonisolated(unsafe) var currentToken: UInt64 = 0

func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

@inline(never)
func allocateAndFree(_ count: Int) {
    for index in 0..<count {
        let object = Small()
        object.value = index
        sink = object
    }
    sink = nil
}

@inline(never)
func churn(_ count: Int) {
    var slot = 0
    for index in 0..<count {
        let object = Small()
        object.value = index
        ring[slot] = object
        slot += 1
        if slot == ring.count { slot = 0 }
    }
}

/// 64 call sites (16 functions of 4 types, each called from 4 places by `sites`).
@inline(never) func site1(_ i: Int) { sink = Small() }
@inline(never) func site2(_ i: Int) { sink = Small2() }
@inline(never) func site3(_ i: Int) { sink = Small3() }
@inline(never) func site4(_ i: Int) { sink = Small4() }

@inline(never)
func sites(_ count: Int) {
    for index in 0..<count / 16 {
        site1(index); site2(index); site3(index); site4(index)
        site1(index); site2(index); site3(index); site4(index)
        site1(index); site2(index); site3(index); site4(index)
        site1(index); site2(index); site3(index); site4(index)
    }
    sink = nil
}

func measure(_ workload: String, _ count: Int) -> Double {
    let run = workload == "churn" ? churn : workload == "sites" ? sites : allocateAndFree
    run(count / 10)  // warm up
    let start = now()
    run(count)
    return Double(now() - start) / Double(count)
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    print("usage: AllocationCountBench free|churn|sites COUNT")
    exit(2)
}
let workload = arguments[1]

/// The fastest of `repeats` measurements (the least disturbed by other processes on the machine).
func fastest(_ repeats: Int, _ body: () -> Double) -> Double {
    (0..<repeats).map { _ in body() }.min() ?? 0
}

let repeats = 3
let plain = fastest(repeats) { measure(workload, count) }
var message = [CChar](repeating: 0, count: 512)
guard lg_install(16, &message, message.count) == 0 else {
    print("install failed: \(String(cString: message))")
    exit(1)
}
lg_set_scope_source { currentToken }
let track = fastest(repeats) { measure(workload, count) }
// A scope open and current, counted or not, in alternation.
var scoped = Double.infinity
var counted = Double.infinity
for _ in 0..<repeats {
    let scope = lg_scope_begin()
    currentToken = scope
    scoped = min(scoped, measure(workload, count))
    _ = lg_count_begin(scope)
    counted = min(counted, measure(workload, count))
    var rows: UnsafeMutablePointer<lg_count_row>?
    lg_count_rows_free(rows, lg_count_end(scope, &rows))
    currentToken = 0
    lg_scope_end(scope)
}
let trackAgain = fastest(repeats) { measure(workload, count) }
_ = lg_count_profile_start()
let profile = fastest(repeats) { measure(workload, count) }
let second = lg_scope_begin()
currentToken = second
_ = lg_count_begin(second)
let both = fastest(repeats) { measure(workload, count) }
print(workload, plain, min(track, trackAgain), scoped, counted, profile, both)
