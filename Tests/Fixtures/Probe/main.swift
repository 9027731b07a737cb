// A program for testing `leakgraph run` itself: it prints the arguments it got, one per line, and
// optionally a line read from standard input, then ends the way its environment says:
//   PROBE_EXIT_STATUS=N   exit(N) (default: return from main, status 0)
//   PROBE_UNDERSCORE_EXIT=1   _exit(N) instead, which skips the exit-time leak check
//   PROBE_READ_STDIN=1    echo one line of standard input as `stdin=<line>`
//   PROBE_SIGINT_STATE=1  print `sigint=default` or `sigint=ignored` (the disposition it was started with)
//   PROBE_SIGNAL_PARENT=1 send SIGINT and SIGQUIT to its parent (`leakgraph`, which must ignore them)
//   PROBE_REWRITE_ARGUMENTS=1  replace CommandLine.arguments before exiting, so that the preload library
//                         names other arguments than `leakgraph run` gave (its rendered files are stale)
import Glibc

let arguments = CommandLine.arguments.dropFirst()
print("argument count \(arguments.count)")
for (index, argument) in arguments.enumerated() {
    print("argument[\(index)]=\(argument)")
}
if getenv("PROBE_READ_STDIN") != nil {
    print("stdin=\(readLine() ?? "<eof>")")
}
if getenv("PROBE_SIGINT_STATE") != nil {
    var action = sigaction()
    sigaction(SIGINT, nil, &action)
    let ignored = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    print("sigint=\(ignored ? "ignored" : "default")")
}
if getenv("PROBE_SIGNAL_PARENT") != nil {
    kill(getppid(), SIGINT)
    kill(getppid(), SIGQUIT)
    usleep(100_000)
}
if getenv("PROBE_REWRITE_ARGUMENTS") != nil {
    rewriteArguments()
}
let status = getenv("PROBE_EXIT_STATUS").flatMap { Int32(String(cString: $0)) } ?? 0
if getenv("PROBE_UNDERSCORE_EXIT") != nil {
    fflush(stdout)
    _exit(status)
}
if status != 0 {
    exit(status)
}

/// Replaces the arguments the Swift runtime hands out (the setter is deprecated; the warning is expected).
func rewriteArguments() {
    CommandLine.arguments = [CommandLine.arguments[0], "rewritten"]
}
