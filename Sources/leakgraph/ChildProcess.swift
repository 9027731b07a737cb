import CLeakGraphCLISignals

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
    /// `leakgraph`, which waits for the program to end and reports. The same signals from the terminal
    /// (Ctrl-C, Ctrl-\) already reach the program, which shares the foreground process group: they are
    /// not sent twice. A signal ignored when `leakgraph` started stays ignored, in both.
    /// - Throws: ``ToolError`` when the program cannot be started or waited for.
    static func run(path: String, arguments: [String], environment: [String]) throws(ToolError) -> Termination {
        var original = sigset_t()
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in ForwardedSignals.signals { sigaddset(&blocked, signal) }
        // Signals arriving before the child's pid is known wait, and are forwarded once it is.
        pthread_sigmask(SIG_BLOCK, &blocked, &original)
        let forwarded = ForwardedSignals()
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
        // blocked (some test harnesses block nearly every signal in the thread that spawns).
        var childMask = original
        for signal in forwarded.signalsToResetInChild { sigdelset(&childMask, signal) }
        posix_spawnattr_setsigmask(&attributes, &childMask)
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
        for signal in forwarded.signalsToResetInChild { sigdelset(&waiting, signal) }
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

/// SIGINT, SIGTERM, SIGHUP and SIGQUIT forwarded to the child while it runs (`lg_cli_forward_to`,
/// in CLeakGraphCLISignals), with the previous dispositions kept to restore them.
struct ForwardedSignals {
    /// The signals forwarded.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    private var previous: [(signal: Int32, action: sigaction)] = []

    /// Installs the forwarding handler for each signal not ignored now (an ignored signal stays
    /// ignored: `nohup`, or a shell's background job, meant it).
    init() {
        for signal in Self.signals {
            var old = sigaction()
            guard sigaction(signal, nil, &old) == 0 else { continue }
            let handler = old.__sigaction_handler.sa_handler
            let ignored = handler.map { unsafeBitCast($0, to: Int.self) } == unsafeBitCast(SIG_IGN, to: Int.self)
            guard !ignored, lg_cli_install_forwarding(signal) == 0 else { continue }
            previous.append((signal, old))
        }
    }

    /// The signals the child must get back at their default action: those forwarded (an ignored
    /// signal stays ignored across `exec`, as the shell meant).
    var signalsToResetInChild: [Int32] { previous.map(\.signal) }

    /// Puts the previous dispositions back.
    func restore() {
        for (signal, action) in previous {
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
