#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which variant of the app runs.
enum Mode: String {
    /// The message observer and the slide control's delegate hold the chat screen strongly.
    case leak
    /// Both fixed: `[weak self]` in the observer, `weak var delegate` in the slide control.
    case fixed
    /// Both fixed, but the refresh task listens for updates forever and captures the screen strongly.
    case task
}

/// The mode named by the only command-line argument; no argument is `leak`.
let mode: Mode = {
    let arguments = CommandLine.arguments.dropFirst()
    guard arguments.count <= 1, let mode = Mode(rawValue: arguments.first ?? "leak") else {
        print("usage: NeighBird [leak | fixed | task]")
        exit(64)
    }
    return mode
}()

/// How many chat screens were deinitialized, printed at the end.
nonisolated(unsafe) var freedChatScreens = 0
