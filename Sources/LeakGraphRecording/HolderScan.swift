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
        /// Per candidate: something that holds could point into it — a word in memory no tracked
        /// object owns (a stack, a module's data, C memory), or a word the kernel keeps.
        public var heldFromUntrackedMemory: [Bool]
        /// Per candidate: the address of the first such word in memory (0 when none, or when the
        /// kernel holds it).
        public var firstUntrackedHolder: [UInt]
        /// Per candidate: the place of the kernel whose word holds it, if that is what holds it.
        public var heldByKernel: [KernelPlace?]
        /// Words inside tracked objects (other than the candidate itself), or in untracked malloc'd
        /// memory that one tracked object owns, that could point into a candidate; one entry per word.
        public var trackedHolders: [TrackedHolder]
        /// Places of the kernel that can hold pointers and could not be read: while there is one,
        /// nothing the scan found proves a candidate unreferenced.
        public var unreadKernelPlaces: [KernelPlace]
        /// Bytes and mappings read, threads stopped, and for how long.
        public var bytesRead: UInt64
        public var mappingsRead: UInt64
        public var threadsStopped: UInt64
        public var stoppedNanoseconds: UInt64
        /// Passes over memory (1, plus one per level of untracked memory followed) and the untracked
        /// malloc chunks followed.
        public var passes: UInt64
        public var chunksFollowed: UInt64
        /// Words and bytes read from the kernel's places.
        public var kernelWords: UInt64
        public var kernelBytes: UInt64
    }

    /// A word that could reference a candidate, in a tracked object's memory.
    public struct TrackedHolder: Sendable, Equatable {
        /// The candidate's index.
        public var candidate: Int
        /// The address of the tracked object holding the word, or owning the untracked memory that does.
        public var holder: UInt
        /// Where the word is.
        public var location: UInt
        /// Whether the word is in untracked malloc'd memory that `holder` owns (every word pointing into
        /// that memory lies in `holder`, or in memory `holder` owns in turn) rather than in `holder`.
        public var throughMemory: Bool
    }

    /// A place where the kernel keeps words of the program (`lg_kernel_place_kind`).
    public struct KernelPlace: Sendable, Hashable, CustomStringConvertible {
        /// The kind (`LG_KERNEL_EPOLL`, `LG_KERNEL_PIPE`, …).
        public var kind: UInt32
        /// The descriptor, when the place has one.
        public var descriptor: Int?
        /// Bytes not read, when known and not zero.
        public var bytes: UInt64

        public init(kind: UInt32, descriptor: Int?, bytes: UInt64 = 0) {
            self.kind = kind
            self.descriptor = descriptor
            self.bytes = bytes
        }

        /// The place in words: `an epoll registration (descriptor 5)`.
        public var description: String {
            let fd = descriptor.map { " (descriptor \($0))" } ?? ""
            let amount = bytes > 0 ? "\(bytes) bytes " : ""
            switch Int32(kind) {
            case Int32(LG_KERNEL_EPOLL.rawValue): return "an epoll registration's data\(fd)"
            case Int32(LG_KERNEL_PIPE.rawValue):
                return "\(amount.isEmpty ? "the bytes " : amount)in flight in a pipe\(fd)"
            case Int32(LG_KERNEL_SOCKET.rawValue):
                return "\(amount.isEmpty ? "the bytes " : amount)in a socket's receive queue\(fd)"
            case Int32(LG_KERNEL_TIMER.rawValue): return "a POSIX timer's value (sigev_value)"
            case Int32(LG_KERNEL_EVENTFD.rawValue): return "an eventfd's counter\(fd)"
            case Int32(LG_KERNEL_SOCKET_SEND.rawValue):
                return "\(amount.isEmpty ? "the bytes " : amount)a TCP socket has yet to send\(fd)"
            case Int32(LG_KERNEL_IO_URING.rawValue): return "the requests in flight of an io_uring instance\(fd)"
            case Int32(LG_KERNEL_MQUEUE.rawValue): return "the messages of a POSIX message queue\(fd)"
            case Int32(LG_KERNEL_SIGNALS.rawValue): return "the values of pending realtime signals"
            case Int32(LG_KERNEL_AIO.rawValue): return "the requests in flight of an AIO context (io_submit)"
            case Int32(LG_KERNEL_DESCRIPTORS.rawValue):
                return "the process's descriptors (/proc/self/fd could not be listed)"
            default: return "a place of the kernel (\(kind))"
            }
        }
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
    public static func scan(count: Int, candidate: (Int) -> Range<UInt>, objects: UnsafeBufferPointer<UInt>) -> Result?
    {
        guard count > 0 else {
            return Result(
                heldFromUntrackedMemory: [], firstUntrackedHolder: [], heldByKernel: [], trackedHolders: [],
                unreadKernelPlaces: [],
                bytesRead: 0, mappingsRead: 0, threadsStopped: 0, stoppedNanoseconds: 0, passes: 0, chunksFollowed: 0,
                kernelWords: 0, kernelBytes: 0)
        }
        // Buffers the scan must not read as holders: they hold candidates' and objects' addresses.
        let ranges = UnsafeMutableBufferPointer<lg_range>.allocate(capacity: count)
        defer { ranges.deallocate() }
        for index in 0..<count {
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
        let unreadCapacity = 64
        let unread = UnsafeMutableBufferPointer<lg_kernel_place>.allocate(capacity: unreadCapacity)
        defer { unread.deallocate() }
        let excluded = [
            span(UnsafeBufferPointer(ranges)), span(UnsafeBufferPointer(hits)), span(UnsafeBufferPointer(heldAt)),
            span(objects),
        ]
        var request = lg_scan_request()
        let status = excluded.withUnsafeBufferPointer { excludedBuffer in
            request.candidates = UnsafePointer(ranges.baseAddress)
            request.candidate_count = count
            request.objects = objects.baseAddress
            request.object_count = objects.count
            request.excluded = excludedBuffer.baseAddress
            request.excluded_count = excludedBuffer.count
            request.held = held.baseAddress
            request.held_at = heldAt.baseAddress
            request.hits = hits.baseAddress
            request.hit_capacity = capacity
            request.unread = unread.baseAddress
            request.unread_capacity = unreadCapacity
            return lg_scan_holders(&request)
        }
        guard status == LG_SCAN_OK else { return nil }
        let stats = request.stats
        let kernel = held.indices.map { index -> KernelPlace? in
            let code = held[index]
            guard code > LG_HELD_MEMORY else { return nil }
            return KernelPlace(
                kind: UInt32(code), descriptor: Int(Int32(truncatingIfNeeded: heldAt[index])).nonNegative)
        }
        var unreadPlaces = unread.prefix(min(request.unread_count, unreadCapacity)).map {
            KernelPlace(kind: $0.kind, descriptor: Int($0.fd).nonNegative, bytes: $0.bytes)
        }
        if request.unread_count > unreadCapacity {
            unreadPlaces.append(KernelPlace(kind: 0, descriptor: nil))
        }
        return Result(
            heldFromUntrackedMemory: held.map { $0 != 0 },
            firstUntrackedHolder: held.indices.map { held[$0] == LG_HELD_MEMORY ? heldAt[$0] : 0 },
            heldByKernel: kernel,
            trackedHolders: hits.prefix(request.hit_count).map {
                TrackedHolder(
                    candidate: Int($0.candidate), holder: UInt($0.holder), location: UInt($0.location),
                    throughMemory: $0.through_memory != 0)
            },
            unreadKernelPlaces: unreadPlaces,
            bytesRead: stats.bytes, mappingsRead: stats.mappings, threadsStopped: stats.threads,
            stoppedNanoseconds: stats.stopped_ns,
            passes: stats.passes, chunksFollowed: stats.chunks, kernelWords: stats.kernel_words,
            kernelBytes: stats.kernel_bytes)
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
        for index in 0..<count {
            let range = candidate(index)
            ranges[index] = lg_range(start: range.lowerBound, end: range.upperBound)
        }
        let held = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
        held.initialize(repeating: 0)
        defer { held.deallocate() }
        var bytes: UInt64 = 0
        let hookModule = unsafeBitCast(
            lg_static_holders
                as @convention(c) (
                    UnsafePointer<lg_range>?, Int, UnsafePointer<UnsafeRawPointer?>?, Int, UnsafeMutablePointer<UInt8>?,
                    UnsafeMutablePointer<UInt64>?
                ) -> Int, to: UnsafeRawPointer.self)
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

extension Int {
    /// `self`, or `nil` when negative (a place without a descriptor).
    fileprivate var nonNegative: Int? { self >= 0 ? self : nil }
}
