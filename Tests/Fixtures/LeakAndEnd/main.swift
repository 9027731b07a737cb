// A program that leaks one known cycle (Owner ⇄ Partner, via `partner` and `owner`), then ends the way
// its arguments say — for `leakgraph run`'s exit statuses, signals and crashes:
//   LeakAndEnd [clean] exit N   exit(N) (with `clean`, nothing is leaked first)
//   LeakAndEnd [clean] wait     print "ready" and sleep until a signal ends it (at most 60 s, then exit 4)
//   LeakAndEnd handle-term      like `wait`, but SIGTERM has a handler of the program's own: it prints
//                               "handled SIGTERM" and exits with 0 (its leaks checked at exit)
//   LeakAndEnd [clean] handle-int   like `wait`, but SIGINT has a handler of the program's own (installed
//                               whatever its disposition at start, as servers do): it prints "handled
//                               SIGINT" and exits with 0
//   LeakAndEnd [clean] churn MS  print "ready", then every MS milliseconds make one more Owner ⇄ Partner pair:
//                               leaked, or with `clean` broken before it is dropped (nothing leaked); until
//                               a signal ends it (at most 60 s, then exit 4)
//   LeakAndEnd segv | trap | abort   crash: a null write, a Swift runtime trap, abort()
//   LeakAndEnd spawn PROGRAM ARGUMENTS…   start PROGRAM (posix_spawn, same environment), wait, exit with its status
//   LeakAndEnd [clean] loaded MODE…   print which of LeakGraph's checker library, Foundation and libdw this
//                               process has loaded now ("loaded: NAME, …" or "loaded: none"), then go on
//                               with MODE (exit N, wait, …)
import Glibc

final class Owner {
    var partner: Partner?
}

final class Partner {
    var owner: Owner?
}

/// Objects a run with a thousand arguments would keep (never): passing each new object here keeps -O
/// from removing the allocations of a pair nothing else reads.
var escaped: [AnyObject] = []

@inline(never)
func escape(_ object: AnyObject) {
    if CommandLine.arguments.count > 1000 { escaped.append(object) }
}

@inline(never)
func makePair() {
    let owner = Owner()
    let partner = Partner()
    escape(owner)
    escape(partner)
    owner.partner = partner
    partner.owner = owner
}

/// Makes a pair and breaks its cycle before dropping it: nothing leaked.
@inline(never)
func makeBrokenPair() {
    let owner = Owner()
    let partner = Partner()
    escape(owner)
    escape(partner)
    owner.partner = partner
    partner.owner = owner
    partner.owner = nil
}

@inline(never)
func trap(_ values: [Int], at index: Int) -> Int {
    values[index]
}

@inline(never)
func waitForSignal() -> Never {
    print("ready")
    fflush(stdout)
    for _ in 0..<600 { usleep(100_000) }
    exit(4)
}

/// The libraries among `names` that this process has mapped (from /proc/self/maps).
func loadedLibraries(_ names: [String]) -> [String] {
    guard let maps = fopen("/proc/self/maps", "r") else { return ["(no /proc/self/maps)"] }
    defer { fclose(maps) }
    var found: Set<String> = []
    var line = [CChar](repeating: 0, count: 4096)
    while fgets(&line, Int32(line.count), maps) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        for name in names where text.contains("/" + name) { found.insert(name) }
    }
    return names.filter(found.contains)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let clean = arguments.first == "clean"
if clean {
    arguments.removeFirst()
} else {
    makePair()
}
if arguments.first == "loaded" {
    arguments.removeFirst()
    let loaded = loadedLibraries(["libLeakGraphPreloadChecker.so", "libFoundation.so", "libFoundationEssentials.so", "libdw.so"])
    print("loaded: " + (loaded.isEmpty ? "none" : loaded.joined(separator: ", ")))
    fflush(stdout)
}
switch arguments.first {
case "exit":
    exit(Int32(arguments.dropFirst().first ?? "0") ?? 0)
case "wait":
    waitForSignal()
case "handle-term":
    signal(SIGTERM) { _ in
        let text = "handled SIGTERM\n"
        _ = write(1, text, text.utf8.count)
        exit(0)
    }
    waitForSignal()
case "handle-int":
    signal(SIGINT) { _ in
        let text = "handled SIGINT\n"
        _ = write(1, text, text.utf8.count)
        exit(0)
    }
    waitForSignal()
case "churn":
    let milliseconds = UInt32(arguments.dropFirst().first ?? "100") ?? 100
    print("ready")
    fflush(stdout)
    let start = time(nil)
    while time(nil) - start < 60 {
        if clean { makeBrokenPair() } else { makePair() }
        usleep(milliseconds * 1000)
    }
    exit(4)
case "segv":
    UnsafeMutablePointer<Int>(bitPattern: 8)!.pointee = 1
case "trap":
    print(trap([1, 2], at: arguments.count + 5))
case "abort":
    abort()
case "spawn":
    let command = Array(arguments.dropFirst())
    var pid = pid_t()
    let argv = command.map { strdup($0) } + [nil]
    guard posix_spawn(&pid, command[0], nil, nil, argv, environ) == 0 else { exit(5) }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    exit((status >> 8) & 0xff)
default:
    print("usage: LeakAndEnd [clean] [loaded] exit N | wait | handle-term | handle-int | churn MS | segv | trap | abort | spawn PROGRAM …")
    exit(64)
}
