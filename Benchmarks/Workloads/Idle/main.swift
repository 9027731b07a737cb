// Idle: a program that only sleeps — what scripts/bench measures the preload's fixed cost with. It
// sleeps, then prints its resident memory while it still runs (`VmRSS` of /proc/self/status, in KB),
// before any exit check.
//
// Usage: Idle [MILLISECONDS]   (default 200)

#if canImport(Glibc)
    import Glibc
#endif

let milliseconds = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
usleep(UInt32(milliseconds * 1000))
var resident = 0
if let status = fopen("/proc/self/status", "r") {
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), status) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") {
            resident = Int(text.filter(\.isNumber)) ?? 0
        }
    }
    fclose(status)
}
print("idle rss \(resident) KB")
