#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which variant of the app runs: `leak` (the default) keeps the bugs, `fixed` has their one-line fixes.
enum Mode: String {
    case leak
    case fixed
}

/// The mode named by the only command-line argument; no argument is `leak`.
let mode: Mode = {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count <= 1, let mode = Mode(rawValue: arguments.first ?? "leak") else {
        print("usage: FindMyBike [leak | fixed]")
        exit(64)
    }
    return mode
}()

/// How many view controllers were deinitialized, printed at the end.
nonisolated(unsafe) var freedViewControllers = 0
