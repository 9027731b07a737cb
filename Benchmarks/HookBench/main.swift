// HookBench: the cost of LeakGraph's allocation hook, per allocate+free of a small class instance.
//
// Usage: HookBench MODE WORKLOAD [COUNT]
//   MODE      plain | passthrough | record | track | track-nostack
//   WORKLOAD  free  (allocate, then free at once: each object replaces the previous one)
//             churn (each object lives for the next 10,000 allocations: survives its nursery)
// One process measures the plain loop first, then installs the hook in MODE and measures again,
// and prints: MODE WORKLOAD PLAIN_NS HOOKED_NS (nanoseconds per allocation).
// Built and run by scripts/bench-hook; not part of the package's targets.

import CLeakGraphHook

#if canImport(Glibc)
import Glibc
#endif

final class Small {
    var value = 0
}

/// Where each new object is stored, so that it escapes and the previous one is released.
nonisolated(unsafe) var sink: Small?
nonisolated(unsafe) var ring = [Small?](repeating: nil, count: 10_000)

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

func measure(_ workload: String, _ count: Int) -> Double {
    let run = workload == "churn" ? churn : allocateAndFree
    run(count / 10)  // warm up
    let start = now()
    run(count)
    return Double(now() - start) / Double(count)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: HookBench plain|passthrough|record|track|track-nostack free|churn [COUNT]")
    exit(2)
}
let mode = arguments[1]
let workload = arguments[2]
let count = arguments.count > 3 ? Int(arguments[3]) ?? 10_000_000 : 10_000_000

let plain = measure(workload, count)
var hooked = plain
if mode != "plain" {
    let (frames, hookMode): (UInt32, lg_mode) =
        switch mode {
        case "passthrough": (16, LG_MODE_PASS_THROUGH)
        case "record": (16, LG_MODE_RECORD_ONLY)
        case "track": (16, LG_MODE_TRACK)
        case "track-nostack": (0, LG_MODE_TRACK)
        default: (0, lg_mode(rawValue: 99))
        }
    var message = [CChar](repeating: 0, count: 512)
    let status = lg_install_mode(frames, hookMode, &message, message.count)
    guard status == 0 else {
        print("install failed (\(status)): \(String(cString: message))")
        exit(1)
    }
    hooked = measure(workload, count)
}
var stats = lg_stats_t()
lg_stats(&stats)
print(mode, workload, plain, hooked, stats.allocations, stats.zombies_released, stats.records, stats.stacks,
      stats.nursery_sweeps, stats.table_sweeps)
