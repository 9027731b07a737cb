import LeakGraphModel

/// The machine-readable result of one leak check: the JSON report, schema version 2 (version 1 is read).
///
/// Field names and meanings are fixed by the schema (docs/report-format.md); new fields may be added,
/// existing ones never change meaning within a schema version.
public struct LeakReport: Sendable, Codable, Equatable {
    /// The version of this schema. Readers check it first.
    public var schemaVersion: Int
    /// The program that was checked.
    public var program: Program
    /// Totals.
    public var summary: Summary
    /// Every leaked object.
    public var leaks: [Leak]
    /// The references between leaked objects (of every ownership).
    public var references: [LeakReference]
    /// Root cycles with the objects they hold.
    public var cycles: [Cycle]
    /// What the walk could not read exactly (additional field).
    public var diagnostics: [WalkDiagnostic]
    /// Every live object by type, most bytes first, when the check was asked for it
    /// (`leakgraph run --live-histogram`; additional field, absent otherwise).
    public var liveTypes: [TypeTally]?
    /// Why the objects of the types asked about are alive (`leakgraph run --why TYPE`; additional
    /// field, absent otherwise): one ``RetainerQuery`` per type.
    public var why: [RetainerQuery]?
    /// What the program left when it crashed (additional field, absent otherwise): then no leak check ran.
    public var crash: Crash?
    /// Every Swift allocation of the run by type and creation site, when asked for
    /// (`leakgraph run --allocations`; additional field, absent otherwise).
    public var allocations: AllocationProfile?
    /// What each test allocated (`leakgraph test --allocations`; additional field, absent otherwise).
    public var testAllocations: [TestAllocations]?

    /// The schema version this library writes: 2, which stores each distinct backtrace once (a `stacks`
    /// table) where version 1 repeated it in every leak. Both are read.
    public static let currentSchemaVersion = 2

    /// Creates a report.
    public init(
        schemaVersion: Int = LeakReport.currentSchemaVersion, program: Program, summary: Summary,
        leaks: [Leak], references: [LeakReference], cycles: [Cycle], diagnostics: [WalkDiagnostic] = []
    ) {
        self.schemaVersion = schemaVersion
        self.program = program
        self.summary = summary
        self.leaks = leaks
        self.references = references
        self.cycles = cycles
        self.diagnostics = diagnostics
    }

    /// The program that was checked.
    public struct Program: Sendable, Codable, Equatable {
        /// The executable's path.
        public var path: String
        /// The arguments it was given (without the executable).
        public var arguments: [String]
        /// Its exit status (0 when the check ran in-process before exit; 128 + the signal's number
        /// when a signal ended it, as a shell reports it).
        public var exitStatus: Int
        /// The signal that ended the program (`SIGTERM`), when the check ran because of it: the
        /// program did not handle the signal itself, so the check ran and the program then died
        /// of it (additional field, absent otherwise).
        public var signal: String?
        /// `true` when the check ran while the program went on running (a `LeakMonitor`'s periodic
        /// check, `leakgraph run --every`): the program had not exited, and ``exitStatus`` (0) says
        /// nothing (additional field, absent otherwise).
        public var running: Bool?

        /// Creates a program description.
        public init(path: String, arguments: [String], exitStatus: Int, signal: String? = nil, running: Bool? = nil) {
            self.path = path
            self.arguments = arguments
            self.exitStatus = exitStatus
            self.signal = signal
            self.running = running
        }
    }

    /// Totals of one check.
    public struct Summary: Sendable, Codable, Equatable {
        /// Objects the recorder knew of when the check ran (live and already dead but not yet released).
        public var trackedObjects: Int
        /// Live objects walked.
        public var liveObjects: Int
        /// Objects proven leaked.
        public var leakedObjects: Int
        /// Bytes held by leaked objects.
        public var leakedBytes: Int
        /// Root cycles found.
        public var rootCycles: Int

        /// Creates a summary.
        public init(trackedObjects: Int, liveObjects: Int, leakedObjects: Int, leakedBytes: Int, rootCycles: Int) {
            self.trackedObjects = trackedObjects
            self.liveObjects = liveObjects
            self.leakedObjects = leakedObjects
            self.leakedBytes = leakedBytes
            self.rootCycles = rootCycles
        }
    }

    /// One leaked object.
    public struct Leak: Sendable, Codable, Equatable {
        /// The object's id within this report.
        public var id: Int
        /// Its address, `0x…`.
        public var address: String
        /// The runtime's fully qualified type name.
        public var type: String
        /// `class`, `closureContext`, `box`, `arrayStorage`, `dictionaryStorage`, `setStorage` or `other`.
        public var kind: String
        /// Allocation size in bytes.
        public var size: Int
        /// Strong retain count.
        public var retainCount: Int
        /// The id of the root cycle it belongs to or is held by.
        public var cycle: Int?
        /// Creation backtrace, the user's own frames first.
        public var backtrace: [Frame]
        /// The accounting that proves the leak: the retain count and the ids of the leaked objects whose
        /// strong references explain it (additional field).
        public var proof: Proof?

        /// Creates a leak entry.
        public init(
            id: Int, address: String, type: String, kind: String, size: Int, retainCount: Int, cycle: Int?,
            backtrace: [Frame], proof: Proof? = nil
        ) {
            self.id = id
            self.address = address
            self.type = type
            self.kind = kind
            self.size = size
            self.retainCount = retainCount
            self.cycle = cycle
            self.backtrace = backtrace
            self.proof = proof
        }
    }

    /// The accounting behind one leak.
    public struct Proof: Sendable, Codable, Equatable {
        /// The strong retain count read from the object.
        public var retainCount: Int
        /// Leak ids of the sources of strong references into it (one entry per reference).
        public var inEdges: [Int]

        /// Creates a proof.
        public init(retainCount: Int, inEdges: [Int]) {
            self.retainCount = retainCount
            self.inEdges = inEdges
        }
    }

    /// One symbolized frame of a creation backtrace.
    public struct Frame: Sendable, Codable, Hashable {
        /// The demangled function name (or `0x…` when unknown).
        public var function: String
        /// The source file, when DWARF knows it.
        public var file: String?
        /// The source line, when DWARF knows it.
        public var line: Int?

        /// Creates a frame.
        public init(function: String, file: String?, line: Int?) {
            self.function = function
            self.file = file
            self.line = line
        }
    }

    /// A reference between two leaked objects.
    public struct LeakReference: Sendable, Codable, Equatable {
        /// Source leak id.
        public var from: Int
        /// Target leak id.
        public var to: Int
        /// Where the reference is stored in its source, as typed steps (additional field; a report written
        /// before paths existed is read with one ``LeakGraphModel/PathStep/label(_:)`` step holding its label).
        public var path: ReferencePath
        /// `strong`, `weak`, `unowned` or `unmanaged`.
        public var ownership: Ownership
        /// Where the reference was stored, when its target's retains were recorded (`--history`;
        /// additional field, `nil` otherwise).
        public var storeSite: StoreSite?

        /// Human label, e.g. `next` or `members[2]`: the path's text (``LeakGraphModel/ReferencePath/text``).
        public var label: String { path.text }

        /// Creates a reference.
        public init(from: Int, to: Int, path: ReferencePath, ownership: Ownership) {
            self.from = from
            self.to = to
            self.path = path
            self.ownership = ownership
        }
    }

    /// A root cycle and what it holds.
    public struct Cycle: Sendable, Codable, Equatable {
        /// The cycle's id.
        public var id: Int
        /// Leak ids of the cycle's members.
        public var members: [Int]
        /// Leak ids of objects leaked only because this cycle holds them.
        public var holds: [Int]
        /// The cycles among ``holds``, each as leak ids: objects that form a cycle of their own but are
        /// leaked because this root cycle holds them (additional field; `nil` in reports written before it).
        public var heldCycles: [[Int]]?
        /// A stable identifier of the cycle's shape, computed from type names and edge labels only (no
        /// addresses), so the same leak has the same fingerprint across runs and builds (additional field).
        public var fingerprint: String?
        /// The reference most likely to be the mistake, with the reason and a fix hint (additional field).
        public var suspect: Suspect?
        /// When cutting the suspect alone leaves a cycle among the members (two loops through one object,
        /// a delegate and a closure both holding the owner), the other references that must be cut too,
        /// each with its reason and fix; `nil` when the suspect alone frees the cycle (additional field).
        public var otherCuts: [Suspect]?
        /// When the cycle is a known leak of a library rather than of the checked code (see
        /// ``KnownLibraryLeaks``): which, and why (additional field).
        public var knownLibraryLeak: String?
        /// For a cycle found among the objects a known library leak holds (a cycle a test case stores, held
        /// by XCTest's root suite): the id of that known leak's cycle. The cycle is the checked code's own
        /// leak — it leaks the moment its holder is released — and counts as such (additional field).
        public var heldByKnownLibraryLeak: Int?
        /// In a report that combines several runs (`leakgraph test`: one per test library), the run the
        /// cycle was found in, e.g. `XCTest` or `Swift Testing`; `nil` in a single run's report
        /// (additional field).
        public var run: String?
        /// In a report of a test run (`leakgraph test`, or `leakgraph run` on a test bundle, with the test
        /// observer loaded), the tests that made the cycle's members, in the order of the members: XCTest's
        /// `Class.testMethod`, Swift Testing's `Suite.function()`. Empty when they were made outside any
        /// test (a static, a suite's set-up, the test runner itself); `nil` when tests were not observed
        /// (additional field).
        public var tests: [String]?
        /// What kind of root group this is when it is not a cycle: ``orphanKind`` (`"orphan"`) for one
        /// object whose retains nothing in the process holds (retained N times, referenced from
        /// nowhere), with what it holds; `nil` for a root cycle (additional field).
        public var kind: String?

        /// The ``kind`` of an orphan: an object retained but referenced from nowhere.
        public static let orphanKind = "orphan"

        /// Whether this root group is an orphan (``kind`` is ``orphanKind``).
        public var isOrphan: Bool { kind == Self.orphanKind }
        /// When a baseline accepts the cycle (``LeakReport/applying(_:)``): which entry, and why. The cycle
        /// is still reported, with what it holds, but a check does not fail on it (additional field).
        public var suppressed: Suppression?

        /// Creates a cycle.
        public init(
            id: Int, members: [Int], holds: [Int], heldCycles: [[Int]]? = nil, fingerprint: String? = nil,
            suspect: Suspect? = nil, otherCuts: [Suspect]? = nil, knownLibraryLeak: String? = nil,
            heldByKnownLibraryLeak: Int? = nil, run: String? = nil, kind: String? = nil,
            suppressed: Suppression? = nil, tests: [String]? = nil
        ) {
            self.tests = tests
            self.kind = kind
            self.heldByKnownLibraryLeak = heldByKnownLibraryLeak
            self.id = id
            self.members = members
            self.holds = holds
            self.heldCycles = heldCycles
            self.fingerprint = fingerprint
            self.suspect = suspect
            self.otherCuts = otherCuts
            self.knownLibraryLeak = knownLibraryLeak
            self.run = run
            self.suppressed = suppressed
        }
    }

    /// The reference of a root cycle most likely to be the mistake, or another reference that must be
    /// cut with it (``Cycle/otherCuts``).
    public struct Suspect: Sendable, Codable, Equatable {
        /// The index of the reference in ``LeakReport/references`` (additional field; reports written before
        /// it are read with the index of the first reference matching `from`, `to` and `label`).
        public var reference: Int?
        /// Leak id of the referencing object.
        public var from: Int
        /// Leak id of the referenced object.
        public var to: Int
        /// The reference's label (`delegate`, `onMessage (closure)`), as its path's text.
        public var label: String
        /// Why this reference is the suspect, in one sentence.
        public var reason: String
        /// What to change, in one sentence (`make it weak var delegate`).
        public var hint: String

        /// Creates a suspect.
        public init(reference: Int? = nil, from: Int, to: Int, label: String, reason: String, hint: String) {
            self.reference = reference
            self.from = from
            self.to = to
            self.label = label
            self.reason = reason
            self.hint = hint
        }
    }
}
