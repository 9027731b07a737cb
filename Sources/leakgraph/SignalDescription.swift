#if canImport(Glibc)
    import Glibc
#endif

/// Names signals the way people know them (`SIGSEGV`), for the message about a program that did not
/// reach the leak check.
enum SignalDescription {
    private static let names: [Int32: String] = [
        SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
        SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGUSR1: "SIGUSR1",
        SIGSEGV: "SIGSEGV", SIGUSR2: "SIGUSR2", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
        SIGSTKFLT: "SIGSTKFLT", SIGCHLD: "SIGCHLD", SIGCONT: "SIGCONT", SIGSTOP: "SIGSTOP", SIGTSTP: "SIGTSTP",
        SIGTTIN: "SIGTTIN", SIGTTOU: "SIGTTOU", SIGURG: "SIGURG", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
        SIGVTALRM: "SIGVTALRM", SIGPROF: "SIGPROF", SIGWINCH: "SIGWINCH", SIGIO: "SIGIO", SIGPWR: "SIGPWR",
        SIGSYS: "SIGSYS",
    ]

    /// Signals that mean the program itself failed (as opposed to being stopped from outside).
    private static let crashSignals: Set<Int32> = [SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS]

    /// 15 for `SIGTERM`; `nil` for a name not known here.
    static func number(named name: String) -> Int32? {
        names.first { $0.value == name }?.key
    }

    /// `SIGSEGV` for 11; `SIGRTMIN+3` for real-time signals; `signal N` otherwise.
    static func name(of signal: Int32) -> String {
        if let name = names[signal] {
            return name
        }
        let realTimeMinimum = __libc_current_sigrtmin()
        if signal >= realTimeMinimum, signal <= __libc_current_sigrtmax() {
            return "SIGRTMIN+\(signal - realTimeMinimum)"
        }
        return "unknown signal"
    }

    /// The sentence for a program that a signal ended before the leak check ran:
    /// `the program crashed with signal 11 (SIGSEGV) before the leak check`.
    static func terminationMessage(signal: Int32) -> String {
        let verb = crashSignals.contains(signal) ? "crashed with" : "was killed by"
        return "the program \(verb) signal \(signal) (\(name(of: signal))) before the leak check"
    }
}
