// A program that crashes before the leak check: it leaks a self-loop, then stops with a fatal error
// (SIGILL on x86_64 Linux). `leakgraph run` must say the program crashed and name the signal.
import Glibc

final class Doomed {
    var me: Doomed?
}

@inline(never)
func makeDoomed() {
    let doomed = Doomed()
    doomed.me = doomed
}

@inline(never)
func crash(_ reason: String) -> Never {
    fatalError(reason)
}

makeDoomed()
if getenv("CRASH_NOT") == nil {
    crash("this fixture crashes on purpose")
}
