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
enum ChildProcess {
    /// Spawns `path` with `arguments` (`arguments[0]` is the program's name) and `environment`, with
    /// standard input, output and error inherited, and waits for it to end.
    ///
    /// While the child runs, this process ignores `SIGINT` and `SIGQUIT`, so Ctrl-C and Ctrl-\ reach the
    /// program only (the child gets the dispositions `leakgraph` was started with).
    /// - Throws: ``ToolError`` when the program cannot be started or waited for.
    static func run(path: String, arguments: [String], environment: [String]) throws(ToolError) -> Termination {
        let ignored = IgnoredSignals([SIGINT, SIGQUIT])
        defer { ignored.restore() }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in ignored.signalsToResetInChild {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

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

/// Signals set to be ignored for a while, with the previous dispositions kept to restore them.
struct IgnoredSignals {
    private var previous: [(signal: Int32, action: sigaction)] = []

    /// Ignores `signals` from now until ``restore()``.
    init(_ signals: [Int32]) {
        for signal in signals {
            var ignore = sigaction()
            ignore.__sigaction_handler.sa_handler = SIG_IGN
            sigemptyset(&ignore.sa_mask)
            var old = sigaction()
            if sigaction(signal, &ignore, &old) == 0 {
                previous.append((signal, old))
            }
        }
    }

    /// The signals the child must get back at their default action: those that were not already ignored
    /// when `leakgraph` started (an ignored signal stays ignored across `exec`, as the shell meant).
    var signalsToResetInChild: [Int32] {
        previous.filter { entry in
            let handler = entry.action.__sigaction_handler.sa_handler
            return handler.map { unsafeBitCast($0, to: Int.self) } != unsafeBitCast(SIG_IGN, to: Int.self)
        }.map(\.signal)
    }

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
