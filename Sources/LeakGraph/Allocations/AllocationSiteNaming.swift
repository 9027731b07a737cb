import FoundationEssentials
import LeakGraphHeap
import LeakGraphRecording
import LeakGraphReport
import LeakGraphSymbolication
import Synchronization

/// Turns the hook's allocation counts (type metadata, creation stack) into an `AllocationProfile`:
/// types named as the walk names them, stacks symbolized into creation sites, and the objects the
/// test libraries made for themselves told apart.
///
/// What is learned about a metadata or a stack is kept for the life of the process (a stack id names
/// one stack for the life of the process), so checks repeated in a test process symbolize each
/// stack once.
enum AllocationSiteNaming {
    /// What a creation stack tells.
    struct StackFacts: Sendable {
        /// The creation site (`ReportNaming.creationSite(_:)`): function, file and line.
        var function: String?
        var file: String?
        var line: Int?
        /// Whether a test library made the object for itself (see ``madeByTestLibrary(_:executablePath:)``).
        var madeByTestLibrary: Bool
    }

    private static let stacks = Mutex<[UInt32: StackFacts]>([:])
    private static let types = Mutex(TypeNames())
    /// One symbolizer for the process, made at the first stack to symbolize: its module indexes (the
    /// test binary's compile units) are built once, not per count.
    private static let symbolizer = Mutex<Symbolizer?>(nil)

    /// `HeapTypeNames` and the names it gave, behind the lock.
    private struct TypeNames: ~Copyable {
        var namer = HeapTypeNames()
        var names: [UInt: String] = [:]
    }

    /// One counted (metadata, stack) with what was made and what is alive.
    struct Tally {
        var objects = 0
        var bytes = 0
        var aliveObjects = 0
        var aliveBytes = 0
    }

    /// Key of a tally: the metadata and the stack.
    struct Key: Hashable {
        var metadata: UInt
        var stack: UInt32
    }

    /// The profile of `made` (count rows) and `alive` (the records of what is still alive), naming each
    /// type and site. With `excludingTestLibraries`, objects a test library made for itself are summed
    /// apart (`AllocationProfile/excludedObjects`) instead of listed.
    ///
    /// Runs with the current thread's allocations ignored.
    static func profile(
        made: [AllocationCountRow], alive: [(metadata: UInt, stack: UInt32, size: Int)], excludingTestLibraries: Bool
    ) -> AllocationProfile {
        Recorder.ignoringCurrentThread {
            var tallies: [Key: Tally] = [:]
            for row in made {
                let key = Key(metadata: UInt(row.metadata), stack: row.stack_id)
                tallies[key, default: Tally()].objects += Int(row.objects)
                tallies[key, default: Tally()].bytes += Int(row.bytes)
            }
            for object in alive {
                let key = Key(metadata: object.metadata, stack: object.stack)
                tallies[key, default: Tally()].aliveObjects += 1
                tallies[key, default: Tally()].aliveBytes += object.size
            }
            let facts = stackFacts(Set(tallies.keys.map(\.stack)))
            let names = typeNames(Set(tallies.keys.map(\.metadata)))
            var sites: [AllocationProfile.Site] = []
            var excludedObjects = 0
            var excludedBytes = 0
            for (key, tally) in tallies {
                let fact = facts[key.stack]
                if excludingTestLibraries, fact?.madeByTestLibrary == true {
                    excludedObjects += tally.objects
                    excludedBytes += tally.bytes
                    continue
                }
                sites.append(
                    AllocationProfile.Site(
                        type: names[key.metadata] ?? "(heap object)", function: fact?.function, file: fact?.file,
                        line: fact?.line, objects: tally.objects, bytes: tally.bytes, aliveObjects: tally.aliveObjects,
                        aliveBytes: tally.aliveBytes))
            }
            return AllocationProfile(sites: sites, excludedObjects: excludedObjects, excludedBytes: excludedBytes)
        }
    }

    /// The names of the types of `metadata`.
    private static func typeNames(_ metadata: Set<UInt>) -> [UInt: String] {
        types.withLock { types in
            var result: [UInt: String] = [:]
            for pointer in metadata {
                if let known = types.names[pointer] {
                    result[pointer] = known
                } else {
                    let name = types.namer.name(ofMetadata: pointer)
                    types.names[pointer] = name
                    result[pointer] = name
                }
            }
            return result
        }
    }

    /// What each of `ids` tells, symbolizing the stacks not seen before (one symbolizer for all of them).
    private static func stackFacts(_ ids: Set<UInt32>) -> [UInt32: StackFacts] {
        var result: [UInt32: StackFacts] = [:]
        let missing = stacks.withLock { known in
            ids.filter { id in
                if let facts = known[id] {
                    result[id] = facts
                    return false
                }
                return id != AllocationRecord.noStack
            }
        }
        guard !missing.isEmpty else { return result }
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let learned = symbolizer.withLock { shared -> [UInt32: StackFacts] in
            if shared == nil {
                shared = try? Symbolizer()
            }
            guard let symbolizer = shared else { return [:] }
            var learned: [UInt32: StackFacts] = [:]
            for id in missing {
                learned[id] = facts(
                    of: symbolizer.symbolizeExpandingInlines(Recorder.stack(id)), executablePath: executable)
            }
            return learned
        }
        stacks.withLock { known in known.merge(learned) { old, _ in old } }
        result.merge(learned) { old, _ in old }
        return result
    }

    /// The creation site and owner of a stack's frames (innermost first).
    static func facts(of frames: [SymbolizedFrame], executablePath: String?) -> StackFacts {
        let ordered = FramePolicy.userFramesFirst(frames, executablePath: executablePath)
        let shown = ordered.map { LeakReport.Frame(function: $0.function, file: $0.file, line: $0.line) }
        var facts = StackFacts(madeByTestLibrary: madeByTestLibrary(frames, executablePath: executablePath))
        guard let site = ReportNaming.creationSite(shown) else { return facts }
        let frame = shown.first { frame in
            frame.function == site.function
                && (site.place == nil || frame.file.map { ReportNaming.place(file: $0, line: frame.line) } == site.place
                    || frame.file.map { ReportNaming.place(file: $0, line: nil) } == site.place)
        }
        facts.function = site.function
        facts.file = site.place == nil ? nil : frame?.file
        facts.line = site.place == nil ? nil : frame?.line.flatMap { $0 > 0 ? $0 : nil }
        return facts
    }

    /// Whether a test library (XCTest, Swift Testing) made the object for itself: going out from the
    /// allocation past the runtime and the libraries that allocate on behalf of their caller (the
    /// standard library, Foundation, Dispatch), the first frame is in a test library or in LeakGraph,
    /// not in the program's own code — or there is no frame of the program at all and a Dispatch queue
    /// ran the work (a test library's work on its queue). Such objects are the test run's own: an `expectation`, an issue
    /// recorded, the runner's bookkeeping around the test body. A stack with no frames (`--frames 0`)
    /// tells nothing: its objects count.
    static func madeByTestLibrary(_ frames: [SymbolizedFrame], executablePath: String?) -> Bool {
        for frame in frames {
            if let module = frame.module, isTestLibrary(module) {
                return true
            }
            switch FramePolicy.category(of: frame, executablePath: executablePath) {
            case .runtime, .library:
                continue
            case .user:
                let module = swiftModule(of: frame)
                if let module, toolchainModules.contains(module) {
                    continue  // a standard library generic specialized into the program: works for its caller
                }
                return module.map { leakGraphModules.contains($0) } ?? false
            }
        }
        // No frame of the program at all, and the stack shows work a Dispatch queue ran (a test library's
        // on its queue): not the code under test's. A stack that simply stops early (optimized code
        // of the standard library keeps no frame pointer) tells nothing: its objects count.
        return frames.contains { frame in
            frame.module.map { ($0.split(separator: "/").last ?? "").hasPrefix("libdispatch.") } ?? false
        }
    }

    /// Swift modules of the toolchain, whose code (specialized or inlined into the program) allocates
    /// for its caller.
    static let toolchainModules: Set<Substring> = [
        "Swift", "_Concurrency", "_StringProcessing", "_RegexParser", "Synchronization", "Observation",
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "Dispatch",
    ]

    /// The Swift module `frame`'s mangled name starts in (`Swift` for the standard library's
    /// shorthands), or `nil` for other symbols: ``FramePolicy/swiftModule(ofMangledName:)`` decides.
    static func swiftModule(of frame: SymbolizedFrame) -> Substring? {
        frame.rawSymbol.flatMap(FramePolicy.swiftModule(ofMangledName:))
    }

    /// `libXCTest.so`, `libTesting.so`, `lib_TestingInterop.so`, `lib_Testing_Foundation.so`.
    static func isTestLibrary(_ module: String) -> Bool {
        let name = module.split(separator: "/").last.map(String.init) ?? module
        return name.hasPrefix("libXCTest.") || name.hasPrefix("libTesting.") || name.hasPrefix("lib_Testing")
    }

    /// LeakGraph's own Swift modules.
    static let leakGraphModules: Set<Substring> = [
        "LeakGraph", "LeakGraphTesting", "LeakGraphRecording", "LeakGraphReport", "LeakGraphHeap", "LeakGraphModel",
        "LeakGraphAnalysis", "LeakGraphSymbolication", "LeakGraphRender", "LeakGraphGraphviz", "LeakGraphPreload",
        "LeakGraphMetrics", "LeakGraphService",
    ]
}
