extension LeakReport {
    /// What a crashed program left (the JSON report's `crash`, an additional field): no leak check
    /// ran — the heap may be what broke — so the report has no leaks, only this.
    public struct Crash: Sendable, Codable, Equatable {
        /// The signal's name: `SIGSEGV`, `SIGBUS`, `SIGILL`, `SIGFPE`, `SIGABRT`, `SIGTRAP`.
        public var signal: String
        /// The faulting address of a SIGSEGV or SIGBUS (`0x…`), when known.
        public var faultAddress: String?
        /// The faulting thread's stack, innermost first: the instruction that faulted, then the
        /// return addresses, symbolized by `leakgraph run` after the process ended.
        public var frames: [Frame]
        /// Swift objects the hook had recorded since the program started.
        public var allocations: Int
        /// Of those, the objects alive when it crashed.
        public var liveObjects: Int

        /// Creates a crash description.
        public init(signal: String, faultAddress: String?, frames: [Frame], allocations: Int, liveObjects: Int) {
            self.signal = signal
            self.faultAddress = faultAddress
            self.frames = frames
            self.allocations = allocations
            self.liveObjects = liveObjects
        }
    }

    /// A report for a program that crashed: no leaks, its `crash`, and the program that crashed.
    public init(crashedProgram program: Program, crash: Crash) {
        self.init(
            program: program,
            summary: Summary(
                trackedObjects: crash.liveObjects, liveObjects: crash.liveObjects, leakedObjects: 0, leakedBytes: 0,
                rootCycles: 0),
            leaks: [], references: [], cycles: [])
        self.crash = crash
    }
}
