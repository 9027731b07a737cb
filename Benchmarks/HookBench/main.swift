// HookBench: the cost of LeakGraph's allocation hook.
//
// Usage: HookBench MODE WORKLOAD [COUNT]
//   MODE      plain | passthrough | record | track-nostack | track | track-freeze (trees only:
//             track, plus one timed lg_freeze at the peak, whose snapshot adds to peak RSS)
//   WORKLOAD  free  (allocate, then free at once: each object replaces the previous one)
//             churn (each object lives for the next 10,000 allocations)
//             trees (binary trees, the benchmarks-game shape: COUNT is the maximum depth, default
//                    18, about 67 M small objects; wall time and peak RSS of the whole process)
// For free and churn one process measures the plain loop first, then installs the hook in MODE and
// measures again, and prints: MODE WORKLOAD PLAIN_NS HOOKED_NS (nanoseconds per allocation).
// For trees the process runs once in MODE (plain: no hook) and prints:
//   MODE trees SECONDS PEAK_RSS_KIB ALLOCATIONS RECORD_BYTES RECORDS FREEZE_MS CHECKSUM
// (the last four at the point where the most objects are alive; FREEZE_MS: one lg_freeze, which
// snapshots every record in address order, plus lg_unfreeze, in track-freeze mode)
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

// MARK: Binary trees

final class TreeNode {
    let left: TreeNode?
    let right: TreeNode?

    init(left: TreeNode?, right: TreeNode?) {
        self.left = left
        self.right = right
    }

    func check() -> Int {
        1 + (left?.check() ?? 0) + (right?.check() ?? 0)
    }
}

func tree(_ depth: Int) -> TreeNode {
    depth == 0 ? TreeNode(left: nil, right: nil) : TreeNode(left: tree(depth - 1), right: tree(depth - 1))
}

/// What the recorder holds at the point of binary trees where the most objects are alive.
struct PeakFigures {
    var recordBytes: UInt64 = 0
    var records: UInt64 = 0
    var freezeMilliseconds = 0.0
}

/// Returns a checksum so that nothing is optimized away, and the recorder's figures at the point
/// where the most objects are alive (including how long a freeze, which takes the snapshot, holds
/// everyone up there).
@inline(never)
func binaryTrees(_ maxDepth: Int) -> (Int, PeakFigures) {
    var checksum = tree(maxDepth + 1).check()
    let longLived = tree(maxDepth)
    var peak = PeakFigures()
    for depth in stride(from: 4, through: maxDepth, by: 2) {
        let iterations = 1 << (maxDepth - depth + 4)
        for _ in 0..<iterations {
            checksum &+= tree(depth).check()
        }
        if depth == maxDepth {
            let t = tree(depth)
            var stats = lg_stats_t()
            lg_stats(&stats)
            peak.recordBytes = stats.record_bytes
            peak.records = stats.records
            if mode == "track-freeze" {
                let start = now()
                var records: UnsafeMutablePointer<lg_record>?
                _ = lg_freeze(&records)
                lg_unfreeze(records)
                peak.freezeMilliseconds = Double(now() - start) / 1e6
            }
            checksum &+= t.check()
        }
    }
    checksum &+= longLived.check()
    return (checksum, peak)
}

// MARK: Main

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: HookBench plain|passthrough|record|track-nostack|track free|churn|trees [COUNT]")
    exit(2)
}
let mode = arguments[1]
let workload = arguments[2]

func install() {
    let (frames, hookMode): (UInt32, lg_mode) =
        switch mode {
        case "passthrough": (16, LG_MODE_PASS_THROUGH)
        case "record": (16, LG_MODE_RECORD_ONLY)
        case "track", "track-freeze": (16, LG_MODE_TRACK)
        case "track-nostack": (0, LG_MODE_TRACK)
        default: (0, lg_mode(rawValue: 99))
        }
    var message = [CChar](repeating: 0, count: 512)
    let status = lg_install_mode(frames, hookMode, &message, message.count)
    guard status == 0 else {
        print("install failed (\(status)): \(String(cString: message))")
        exit(1)
    }
}

if workload == "trees" {
    let depth = arguments.count > 3 ? Int(arguments[3]) ?? 18 : 18
    let start = now()
    if mode != "plain" { install() }
    let (checksum, peak) = binaryTrees(depth)
    let seconds = Double(now() - start) / 1e9
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    var stats = lg_stats_t()
    lg_stats(&stats)
    print(
        mode, workload, seconds, usage.ru_maxrss, stats.allocations, peak.recordBytes, peak.records,
        peak.freezeMilliseconds, checksum)
    exit(0)
}

let count = arguments.count > 3 ? Int(arguments[3]) ?? 10_000_000 : 10_000_000
let plain = measure(workload, count)
var hooked = plain
if mode != "plain" {
    install()
    hooked = measure(workload, count)
}
var stats = lg_stats_t()
lg_stats(&stats)
print(mode, workload, plain, hooked, stats.allocations, stats.tracked_frees, stats.records, stats.stacks)
