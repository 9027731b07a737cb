// RetainBench: what one `swift_retain` + `swift_release` pair costs on this runtime, timed inside the
// process, for objects of two classes — so a run with `leakgraph run --history Cold` shows what
// history costs the retains of every other type (`Hot`: a load and a compare) and one with
// `--history Hot` what a recorded retain costs — and how many of the retains the runtime makes inside
// libswiftCore (an array's copy-on-write copy: `swift_arrayInitWithCopy` retains each element) a
// retain hook sees. scripts/bench-retain runs it plain, under each hooking option and under
// `leakgraph run`, side by side.
//
// Usage: RetainBench HOT_PAIRS COLD_PAIRS (fewer for Cold: under `--history Cold` each of its retains
// and releases is recorded with a stack, and kept)
// Prints one line: `hot_ns=… cold_ns=… copied=… seen=…` (`seen`: the retains a preloaded
// symbol-interposing shim counted during the copies, or -1 without one).

#if canImport(Glibc)
    import Glibc
#endif

final class Hot {
    var value = 0
}

final class Cold {
    var value = 0
}

// The runtime's entry points, looked up as the dynamic linker binds compiled code's calls (a preloaded
// shim's definition first) and called through the pointer, so the optimizer cannot pair and remove them.
typealias RetainFunction = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer
typealias ReleaseFunction = @convention(c) (UnsafeMutableRawPointer) -> Void
let defaultScope = UnsafeMutableRawPointer(bitPattern: 0)
let runtimeRetain = unsafeBitCast(dlsym(defaultScope, "swift_retain")!, to: RetainFunction.self)
let runtimeRelease = unsafeBitCast(dlsym(defaultScope, "swift_release")!, to: ReleaseFunction.self)

func nanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Nanoseconds per retain + release pair on `object`, `pairs` times.
@inline(never)
func timePairs(_ object: AnyObject, pairs: Int) -> Double {
    let pointer = Unmanaged.passUnretained(object).toOpaque()
    let start = nanoseconds()
    for _ in 0..<pairs {
        _ = runtimeRetain(pointer)
        runtimeRelease(pointer)
    }
    return Double(nanoseconds() - start) / Double(pairs)
}

/// The retains a symbol-interposing shim counted so far (`retain_shim_count`), or nil without one.
func shimCount() -> UInt64? {
    guard let symbol = dlsym(defaultScope, "retain_shim_count") else { return nil }
    return symbol.load(as: UInt64.self)
}

/// Copies an array of `elements` references `copies` times (each copy-on-write copy retains every
/// element inside libswiftCore); returns the retains the copies made and the shim's count of them.
@inline(never)
func copyArrays(of object: Hot, elements: Int, copies: Int) -> (made: Int, seen: Int) {
    let original = [Hot](repeating: object, count: elements)
    let before = shimCount()
    var total = 0
    for _ in 0..<copies {
        var copy = original
        copy[0] = object  // forces the copy: `elements` retains in swift_arrayInitWithCopy
        total += copy.count
    }
    let after = shimCount()
    let seen = before.flatMap { start in after.map { Int($0 - start) } } ?? -1
    return (copies * elements, seen)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let hotPairs = arguments.first ?? 20_000_000
let coldPairs = arguments.dropFirst().first ?? 1_000_000
let hot = Hot()
let cold = Cold()
_ = timePairs(hot, pairs: min(hotPairs, 100_000))  // warm up
let hotNanoseconds = timePairs(hot, pairs: hotPairs)
let coldNanoseconds = timePairs(cold, pairs: coldPairs)
let copies = copyArrays(of: hot, elements: 1_000, copies: 100)
print(
    "hot_ns=\((hotNanoseconds * 100).rounded() / 100) cold_ns=\((coldNanoseconds * 100).rounded() / 100)"
        + " copied=\(copies.made) seen=\(copies.seen)")
hot.value = cold.value
