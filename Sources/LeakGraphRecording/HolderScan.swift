import CLeakGraphHook

/// The conservative holder scan behind orphan detection (`lg_scan_holders`): which of a few objects
/// could some word of the process point at, outside what the heap walk read exactly?
///
/// Run it only inside ``Recorder/withFrozenObjects(_:)``. It stops every other thread while it reads
/// memory (see docs/how-it-works.md, "Orphaned retains"), so it must not be called from code another
/// thread waits for.
public enum HolderScan {
    /// What the scan found for every candidate.
    public struct Result: Sendable {
        /// Per candidate: a word outside every tracked object could point into it.
        public var heldFromUntrackedMemory: [Bool]
        /// Per candidate: the address of the first such word (0 when none).
        public var firstUntrackedHolder: [UInt]
        /// Words inside tracked objects (other than the candidate itself) that could point into a
        /// candidate: (candidate index, the holding object's address), one entry per word.
        public var trackedHolders: [(candidate: Int, holder: UInt)]
        /// Bytes and mappings read, threads stopped, and for how long.
        public var bytesRead: UInt64
        public var mappingsRead: UInt64
        public var threadsStopped: UInt64
        public var stoppedNanoseconds: UInt64
    }

    /// Zeroes the stack below the caller's frame (64 KiB), so dead frames there hold no stale copy of
    /// a pointer the program dropped when a scan later runs deeper on this thread: call it first thing
    /// in a check that will scan.
    public static func scrubStack() {
        lg_scan_scrub_stack()
    }

    /// Runs `body` (a check) with this thread's stack read by a scan inside it only from the caller's
    /// frame up: the check's own frames hold its working copies of object addresses, which are no
    /// holders. The callee-saved registers of the callers are kept for the scan. Nested calls keep the
    /// outermost mark.
    public static func checking<R>(_ body: () throws -> R) rethrows -> R {
        enterCheck()
        defer { leaveCheck() }
        return try body()
    }

    /// Marks the start of a check on this thread, as ``checking(_:)`` does around its body (inlined,
    /// so the mark is the caller's own frame); pair it with ``leaveCheck()``.
    @inlinable @inline(__always)
    public static func enterCheck() {
        lg_scan_enter_check()
    }

    /// Ends what ``enterCheck()`` began.
    @inlinable @inline(__always)
    public static func leaveCheck() {
        lg_scan_leave_check()
    }

    /// Scans for holders of `count` candidates, `candidate(i)` the memory of the `i`-th (ascending, not
    /// overlapping). `objects` is the frozen snapshot (every tracked object's address, ascending).
    /// The candidates' addresses are kept in one buffer the scan skips: a caller must not keep them in
    /// other memory while it runs, or that memory would count as a holder.
    ///
    /// - Returns: `nil` when the scan abstained (a thread did not stop, a thread was created
    ///   meanwhile, `/proc` or `process_vm_readv` unavailable): then nothing is proven.
    /// - Complexity: O(*m*) for *m* bytes of readable and writable memory, plus O(log *k*) per word
    ///   that falls between the lowest and highest candidate.
    public static func scan(count: Int, candidate: (Int) -> Range<UInt>, objects: UnsafeBufferPointer<UInt>) -> Result? {
        guard count > 0 else {
            return Result(heldFromUntrackedMemory: [], firstUntrackedHolder: [], trackedHolders: [], bytesRead: 0, mappingsRead: 0, threadsStopped: 0, stoppedNanoseconds: 0)
        }
        // Buffers the scan must not read as holders: they hold candidates' and objects' addresses.
        let ranges = UnsafeMutableBufferPointer<lg_range>.allocate(capacity: count)
        defer { ranges.deallocate() }
        for index in 0 ..< count {
            let range = candidate(index)
            ranges[index] = lg_range(start: range.lowerBound, end: range.upperBound)
        }
        let capacity = 4096 + 4 * count
        let hits = UnsafeMutableBufferPointer<lg_holder_hit>.allocate(capacity: capacity)
        defer { hits.deallocate() }
        let held = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
        defer { held.deallocate() }
        let heldAt = UnsafeMutableBufferPointer<UInt>.allocate(capacity: count)
        heldAt.initialize(repeating: 0)
        defer { heldAt.deallocate() }
        func span<T>(_ buffer: UnsafeBufferPointer<T>) -> lg_range {
            let start = UInt(bitPattern: buffer.baseAddress)
            return lg_range(start: start, end: start + UInt(buffer.count * MemoryLayout<T>.stride))
        }
        let excluded = [
            span(UnsafeBufferPointer(ranges)), span(UnsafeBufferPointer(hits)), span(UnsafeBufferPointer(heldAt)), span(objects),
        ]
        var hitCount = 0
        var stats = lg_scan_stats()
        let status = excluded.withUnsafeBufferPointer { excludedBuffer in
            lg_scan_holders(
                ranges.baseAddress, count, objects.baseAddress, objects.count, excludedBuffer.baseAddress, excludedBuffer.count,
                held.baseAddress, heldAt.baseAddress, hits.baseAddress, capacity, &hitCount, &stats)
        }
        guard status == LG_SCAN_OK else { return nil }
        return Result(
            heldFromUntrackedMemory: held.map { $0 != 0 }, firstUntrackedHolder: Array(heldAt),
            trackedHolders: hits.prefix(hitCount).map { (Int($0.candidate), UInt($0.holder)) },
            bytesRead: stats.bytes, mappingsRead: stats.mappings, threadsStopped: stats.threads, stoppedNanoseconds: stats.stopped_ns)
    }

    /// The first pass of the orphan search: which of `count` candidates (`candidate(i)`, ascending, not
    /// overlapping) a global already holds — a word of the loaded modules' writable static data
    /// (`lg_static_holders`) points into it. No thread is stopped: a word found there holds its
    /// candidate whatever the program does meanwhile. LeakGraph's own modules (the hook's and the
    /// caller's, `module`) are not read. `nil` when `/proc/self/maps` cannot be read.
    ///
    /// - Complexity: O(*s*) for *s* bytes of static data (a few MB), plus O(log *k*) per word that
    ///   falls between the lowest and highest candidate.
    public static func heldByStaticData(
        count: Int, candidate: (Int) -> Range<UInt>, module: UnsafeRawPointer
    ) -> (held: [Bool], bytesRead: UInt64)? {
        guard count > 0 else { return ([], 0) }
        let ranges = UnsafeMutableBufferPointer<lg_range>.allocate(capacity: count)
        defer { ranges.deallocate() }
        for index in 0 ..< count {
            let range = candidate(index)
            ranges[index] = lg_range(start: range.lowerBound, end: range.upperBound)
        }
        let held = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
        held.initialize(repeating: 0)
        defer { held.deallocate() }
        var bytes: UInt64 = 0
        let hookModule = unsafeBitCast(lg_static_holders as @convention(c) (
            UnsafePointer<lg_range>?, Int, UnsafePointer<UnsafeRawPointer?>?, Int, UnsafeMutablePointer<UInt8>?,
            UnsafeMutablePointer<UInt64>?) -> Int, to: UnsafeRawPointer.self)
        let modules: [UnsafeRawPointer?] = [hookModule, module]
        let marked = modules.withUnsafeBufferPointer { skip in
            lg_static_holders(ranges.baseAddress, count, skip.baseAddress, skip.count, held.baseAddress, &bytes)
        }
        guard marked >= 0 else { return nil }
        return (held.map { $0 != 0 }, bytes)
    }

    /// Up to `count` words at `address` of this process, read without ever faulting (fewer, or none,
    /// where the memory is not readable).
    public static func readWords(at address: UInt, count: Int) -> [UInt] {
        var words = [UInt](repeating: 0, count: count)
        let got = words.withUnsafeMutableBytes { lg_read_memory(address, $0.baseAddress, $0.count) }
        return Array(words.prefix(got / MemoryLayout<UInt>.stride))
    }
}
