import CLeakGraphCLISignals
import CLeakGraphContract

#if canImport(Glibc)
    import Glibc
#endif

/// How a child process ended.
enum Termination: Equatable {
    /// It exited normally with this status.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)
}

/// Runs the checked program as a child process that shares the terminal with `leakgraph`.
///
/// Spawned with `posix_spawn`, not swift-subprocess: 1.0.2 runs its children through a process-wide
/// `waitid(P_ALL)` reaper thread and an async API, for a tool that waits for exactly one child it must
/// also forward signals to; the one thing it offers beyond `posix_spawn` here, a hook between `fork`
/// and `exec`, is done instead by the preload library's constructor, which runs in the child before
/// any of the program's code: it sets `PR_SET_PDEATHSIG` (`LG_ENV_PARENT_PID`), so the program dies
/// with `leakgraph` even when `leakgraph` is killed with SIGKILL.
enum ChildProcess {
    /// Spawns `path` with `arguments` (`arguments[0]` is the program's name) and `environment`, with
    /// standard input, output and error inherited, and waits for it to end.
    ///
    /// While the child runs, SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to `leakgraph` by another
    /// process (`kill`, `timeout`, `docker stop`, systemd) are forwarded to the program, and do not end
    /// `leakgraph`, which waits for the program to end and reports; so is `checkSignal` (the check
    /// signal of `--every`, 0 for none), which asks the program for a check. The same signals from the
    /// terminal (Ctrl-C, Ctrl-\) already reach the program, which shares the foreground process group:
    /// they are not sent twice. A signal ignored when `leakgraph` started (`nohup`, a shell's
    /// background job) is still forwarded, and the program starts with it ignored, as it would have
    /// without `leakgraph`: it then does what it would have done alone (nothing, or what the handler it
    /// installs says).
    ///
    /// The program starts with the forwarded signals blocked (`LG_ENV_HELD_SIGNALS`): its preload
    /// library unblocks them once its handlers are installed, so a signal forwarded at once is taken
    /// by them (a check, a final check) instead of killing the program before they exist.
    /// - Throws: ``ToolError`` when the program cannot be started or waited for.
    static func run(
        path: String, arguments: [String], environment: [String], checkSignal: Int32 = 0
    ) throws(ToolError) -> Termination {
        let signals =
            ForwardedSignals.signals
            + (ForwardedSignals.signals.contains(checkSignal) || checkSignal == 0 ? [] : [checkSignal])
        var original = sigset_t()
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in signals { sigaddset(&blocked, signal) }
        // Signals arriving before the child's pid is known wait, and are forwarded once it is.
        pthread_sigmask(SIG_BLOCK, &blocked, &original)
        let forwarded = ForwardedSignals(signals)
        defer {
            forwarded.restore()
            pthread_sigmask(SIG_SETMASK, &original, nil)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in forwarded.signalsToResetInChild {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // The forwarded signals must reach the program even when leakgraph was started with them
        // blocked (some test harnesses block nearly every signal in the thread that spawns): they are
        // held until the preload library's handlers exist, which then unblocks them.
        // A signal leakgraph was started with ignored is caught here now (forwarded), so `exec` gives
        // the program its default action: the preload library ignores it again first thing.
        var childMask = original
        var held: UInt = 0
        var ignored: UInt = 0
        for signal in forwarded.signals {
            sigaddset(&childMask, signal)
            if signal <= LG_HELD_SIGNAL_LIMIT { held |= 1 << UInt(signal - 1) }
        }
        for signal in forwarded.ignoredAtStart where signal <= LG_HELD_SIGNAL_LIMIT {
            ignored |= 1 << UInt(signal - 1)
        }
        posix_spawnattr_setsigmask(&attributes, &childMask)
        let environment =
            environment + (held == 0 ? [] : ["\(LG_ENV_HELD_SIGNALS)=\(held)"])
            + (ignored == 0 ? [] : ["\(LG_ENV_IGNORED_SIGNALS)=\(ignored)"])
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = CStringArray(arguments)
        let envp = CStringArray(environment)
        defer {
            argv.deallocate()
            envp.deallocate()
        }
        var pid = pid_t()
        let spawnError = posix_spawn(&pid, path, nil, &attributes, argv.pointers, envp.pointers)
        guard spawnError == 0 else {
            throw ToolError("cannot start \(path): \(String(cString: strerror(spawnError)))")
        }
        lg_cli_forward_to(pid)
        var waiting = original
        for signal in forwarded.signals { sigdelset(&waiting, signal) }
        pthread_sigmask(SIG_SETMASK, &waiting, nil)
        defer { lg_cli_forward_to(0) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw ToolError("cannot wait for \(path): \(String(cString: strerror(errno)))")
            }
        }
        return Termination(waitStatus: status)
    }
}

extension Termination {
    /// Decodes a `waitpid` status (the `WIFEXITED`/`WTERMSIG` macros are not imported into Swift).
    init(waitStatus status: Int32) {
        let signal = status & 0x7f
        if signal == 0 {
            self = .exited((status >> 8) & 0xff)
        } else {
            self = .signaled(signal)
        }
    }
}

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT (and the check signal) forwarded to the child while it runs
/// (`lg_cli_forward_to`, in CLeakGraphCLISignals), with the previous dispositions kept to restore them.
struct ForwardedSignals {
    /// The termination signals forwarded.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private var previous: [(signal: Int32, action: sigaction, ignored: Bool)] = []

    /// Installs the forwarding handler for each of `signals`, ignored now or not: a signal the shell
    /// ignored (`nohup`, a background job) is ignored by the program too, which decides what it does
    /// with it, as it would without `leakgraph` in between.
    init(_ signals: [Int32]) {
        for signal in signals {
            var old = sigaction()
            guard sigaction(signal, nil, &old) == 0 else { continue }
            let handler = old.__sigaction_handler.sa_handler
            let ignored = handler.map { unsafeBitCast($0, to: Int.self) } == unsafeBitCast(SIG_IGN, to: Int.self)
            guard lg_cli_install_forwarding(signal) == 0 else { continue }
            previous.append((signal, old, ignored))
        }
    }

    /// The signals forwarded.
    var signals: [Int32] { previous.map(\.signal) }

    /// The signals the child must get back at their default action: those forwarded that were not
    /// ignored.
    var signalsToResetInChild: [Int32] { previous.filter { !$0.ignored }.map(\.signal) }

    /// The signals forwarded that were ignored when `leakgraph` started: the program must start with
    /// them ignored too, as the shell meant (`LG_ENV_IGNORED_SIGNALS`).
    var ignoredAtStart: [Int32] { previous.filter(\.ignored).map(\.signal) }

    /// Puts the previous dispositions back.
    func restore() {
        for (signal, action, _) in previous {
            var action = action
            sigaction(signal, &action, nil)
        }
    }
}

/// A NULL-terminated array of C strings, for `posix_spawn`.
struct CStringArray {
    /// The array, ending with `nil`.
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// Copies `strings`.
    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() {
            pointers[index] = strdup(string)
        }
        pointers[strings.count] = nil
    }

    /// Frees the strings and the array.
    func deallocate() {
        var index = 0
        while let string = pointers[index] {
            free(string)
            index += 1
        }
        pointers.deallocate()
    }
}
