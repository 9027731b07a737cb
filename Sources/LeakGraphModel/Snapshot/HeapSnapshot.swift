/// Everything live in a process at one moment: every tracked object (address, type, size, retain
/// count, creation stack, leaked or not), every reference between two of them with its typed path and
/// ownership, the roots and what holds each, and the walk's diagnostics.
///
/// A snapshot is a plain value stored in columns (about 60 bytes per object in memory, with two
/// references per object), so a million objects cost tens of megabytes, not the hundreds an
/// ``ObjectGraph`` of the same heap would. `LeakChecker.snapshot()` takes one; `HeapSnapshotFile`
/// (LeakGraphSnapshotFile) writes it as SQLite and reads it back; `SnapshotAnalysis`
/// (LeakGraphAnalysis) computes dominators, retained sizes and the comparison of two snapshots.
///
/// Objects are numbered `0 ..< objects.count` in address order; every reference, root and stack names
/// objects, types, paths and frames by their index into the snapshot's tables. A leak report opened as
/// a snapshot (``Info/Origin/leakReport``) holds its leaked objects alone.
public struct HeapSnapshot: Sendable, Equatable {
    /// The version of the snapshot format this build writes and reads (docs/snapshots.md). Readers
    /// refuse any other: a newer one, and version 1 (which stored one row per reference).
    public static let formatVersion = 2

    /// The program, the time, and what the snapshot was made from.
    public var info: Info
    /// The distinct types of the objects.
    public var types: [TypeInfo]
    /// Every object, in columns.
    public var objects: Objects
    /// Every reference, grouped by source object.
    public var references: References
    /// The distinct reference paths with their ownership (``Path``).
    public var paths: [Path]
    /// The distinct symbolized frames of the creation stacks.
    public var frames: [Frame]
    /// The creation stacks: per stack, its frames' indices into ``frames``, innermost first.
    public var stacks: [[Int]]
    /// The objects held from outside the heap, each with what holds it, by object.
    public var roots: [Root]
    /// What the walk could not read exactly.
    public var diagnostics: [WalkDiagnostic]

    /// Creates a snapshot from its tables.
    public init(
        info: Info, types: [TypeInfo] = [], objects: Objects = Objects(), references: References = References(),
        paths: [Path] = [], frames: [Frame] = [], stacks: [[Int]] = [], roots: [Root] = [],
        diagnostics: [WalkDiagnostic] = []
    ) {
        self.info = info
        self.types = types
        self.objects = objects
        self.references = references
        self.paths = paths
        self.frames = frames
        self.stacks = stacks
        self.roots = roots
        self.diagnostics = diagnostics
    }
}

extension HeapSnapshot {
    /// The program, the moment and the tool that made a snapshot.
    public struct Info: Sendable, Equatable {
        /// What a snapshot was made from.
        public enum Origin: String, Sendable, Equatable, CaseIterable {
            /// A walk of every live object.
            case heap
            /// A leak report: its leaked objects alone, with their references and backtraces.
            case leakReport
        }

        /// What the snapshot was made from.
        public var origin: Origin
        /// The program's executable.
        public var programPath: String
        /// Its arguments (without the executable).
        public var arguments: [String]
        /// The process id, 0 when unknown.
        public var processID: Int
        /// When the snapshot was taken, in seconds since 1970-01-01 00:00 UTC.
        public var time: Double
        /// The LeakGraph version that took it (``LeakGraphVersion/number``).
        public var leakGraphVersion: String
        /// Objects the recorder was tracking (live or not) when it was taken.
        public var trackedObjects: Int

        /// Creates the facts of a snapshot.
        public init(
            origin: Origin = .heap, programPath: String, arguments: [String] = [], processID: Int = 0, time: Double = 0,
            leakGraphVersion: String = LeakGraphVersion.number, trackedObjects: Int = 0
        ) {
            self.origin = origin
            self.programPath = programPath
            self.arguments = arguments
            self.processID = processID
            self.time = time
            self.leakGraphVersion = leakGraphVersion
            self.trackedObjects = trackedObjects
        }
    }

    /// One type of object.
    public struct TypeInfo: Sendable, Hashable {
        /// The runtime's fully qualified name (as ``ObjectNode/typeName``).
        public var name: String
        /// What kind of heap object it is.
        public var kind: ObjectKind
        /// The Swift module that declares it, when the walk knew (classes); `nil` for closure contexts,
        /// boxes and runtime objects.
        public var module: String?
        /// Its superclasses, nearest first, fully qualified (empty for a root class and other kinds).
        public var superclasses: [String]
        /// Whether it is the program's own: declared outside the Swift runtime, Foundation, Dispatch,
        /// XCTest and Testing — or, without a module, made by the program's own code.
        public var isProgram: Bool

        /// Creates a type.
        public init(
            name: String, kind: ObjectKind, module: String? = nil, superclasses: [String] = [], isProgram: Bool = false
        ) {
            self.name = name
            self.kind = kind
            self.module = module
            self.superclasses = superclasses
            self.isProgram = isProgram
        }
    }

    /// Where a reference is stored in its source and how it holds its target: the steps after the
    /// element of array storage (a reference's ``References/elements`` entry says which element, when
    /// there is one), and the ownership.
    ///
    /// References from the elements of a million-element array share one path and differ by element,
    /// so the table holds each slot once.
    public struct Path: Sendable, Hashable {
        /// The steps after the array element, if any (empty: the element itself, or the object's word).
        public var steps: ReferencePath
        /// How the reference holds its target.
        public var ownership: Ownership

        /// Creates a path.
        public init(steps: ReferencePath, ownership: Ownership) {
            self.steps = steps
            self.ownership = ownership
        }
    }

    /// One symbolized frame of a creation stack.
    public struct Frame: Sendable, Hashable {
        /// Whose code a frame is.
        public enum Category: String, Sendable, Hashable, CaseIterable {
            /// The program's own code (its executable, or a library outside the toolchain and system).
            case program
            /// The Swift toolchain's and the system's libraries.
            case library
            /// The runtime's and LeakGraph's allocation machinery.
            case runtime
            /// Not known (a frame read from a leak report).
            case unknown
        }

        /// The demangled function (or `0x…`).
        public var function: String
        /// The source file, when DWARF knows it.
        public var file: String?
        /// The source line, when DWARF knows it.
        public var line: Int?
        /// The module (file path) the frame lies in, when known.
        public var module: String?
        /// Whose code it is.
        public var category: Category

        /// Creates a frame.
        public init(
            function: String, file: String? = nil, line: Int? = nil, module: String? = nil,
            category: Category = .unknown
        ) {
            self.function = function
            self.file = file
            self.line = line
            self.module = module
            self.category = category
        }
    }

    /// An object held from outside the heap: its retain count is above the strong references the
    /// walk found into it.
    public struct Root: Sendable, Hashable {
        /// The object.
        public var object: Int
        /// Its retains no strong reference read by the walk explains.
        public var unexplainedRetains: Int
        /// What holds it, as far as the holder scan could say.
        public var holder: RootHolder

        /// Creates a root.
        public init(object: Int, unexplainedRetains: Int, holder: RootHolder = RootHolder(kind: .unknown)) {
            self.object = object
            self.unexplainedRetains = unexplainedRetains
            self.holder = holder
        }
    }
}
