import LeakGraphRecording
import LeakGraphReport

extension LeakChecker {
    /// Starts counting every Swift allocation of the process by type and creation site (the allocation
    /// profile; `leakgraph run --allocations` starts it before `main`). Starts recording first if it is
    /// not running. There is no stop.
    ///
    /// - Throws: `RecorderError` when recording cannot start, or the recording this process joins
    ///   cannot count allocations.
    public static func startAllocationProfile(maxFrames: Int = Recorder.defaultMaxFrames) throws {
        if !isRecording {
            try Recorder.install(maxFrames: maxFrames)
        }
        guard Recorder.startAllocationProfile() else {
            throw RecorderError(
                code: .unsupportedRuntime,
                message:
                    "The recording this process joins cannot count allocations (a preloaded LeakGraph without allocation counts)."
            )
        }
    }

    /// The allocation profile so far (see ``startAllocationProfile(maxFrames:)``): every type and creation
    /// site with the objects and bytes made, and how many of them are alive now; `nil` when no profile
    /// runs. Nothing is left out (the test libraries' objects count too).
    ///
    /// Costs a pass over the recorded objects while the heap is frozen, and the symbolization of every
    /// creation stack not seen before.
    public static func allocationProfile() -> AllocationProfile? {
        guard Recorder.isProfilingAllocations else { return nil }
        let (made, alive) = Recorder.ignoringCurrentThread {
            () -> ([AllocationCountRow], [(metadata: UInt, stack: UInt32, size: Int)]) in
            let alive = Recorder.withFrozenHeap { records in
                records.map { (metadata: UInt($0.metadata), stack: $0.stack_id, size: Int($0.size)) }
            }
            return (Recorder.allocationProfile(), alive)
        }
        return AllocationSiteNaming.profile(made: made, alive: alive, excludingTestLibraries: false)
    }
}
