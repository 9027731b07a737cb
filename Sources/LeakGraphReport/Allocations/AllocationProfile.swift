/// How many Swift heap objects some code made, and their bytes, by type and creation site, and how
/// many of them were still alive at the end: what `LeakChecker.countingAllocations` returns for a
/// body, an allocation budget checks, and `leakgraph run --allocations` reports for a whole program
/// (the report's `allocations`).
///
/// Every object the Swift runtime's allocator made is counted — class instances, closure contexts,
/// boxes of captured `var`s, array, dictionary, set and string storage — and every task the program
/// created with `Task { }`; memory made with `malloc` is not. A *creation site* is the frame a leak
/// report names for an object (`ReportNaming.creationSite(_:)`: the user's own code first). Objects
/// that the test libraries made for themselves (XCTest, Swift Testing: their creation stack reaches
/// the user's code only through them) are left out of a test's count and summed in
/// ``excludedObjects`` and ``excludedBytes``.
public struct AllocationProfile: Sendable, Codable, Equatable {
    /// Objects of one type made at one creation site.
    public struct Site: Sendable, Codable, Hashable {
        /// The type's name, as leak reports show it (`App.Widget`, `(closure context, 2 captures)`).
        public var type: String
        /// The creation site's function, demangled; `nil` when the objects have no creation stack.
        public var function: String?
        /// Its source file; `nil` when unknown.
        public var file: String?
        /// Its line; `nil` when unknown.
        public var line: Int?
        /// Objects made.
        public var objects: Int
        /// Their sizes as the runtime asked for them, summed.
        public var bytes: Int
        /// Of those, objects still alive at the end (when the body returned, when the program exited).
        public var aliveObjects: Int
        /// Their bytes.
        public var aliveBytes: Int

        /// Creates a row.
        public init(
            type: String, function: String?, file: String?, line: Int?, objects: Int, bytes: Int,
            aliveObjects: Int = 0, aliveBytes: Int = 0
        ) {
            self.type = type
            self.function = function
            self.file = file
            self.line = line
            self.objects = objects
            self.bytes = bytes
            self.aliveObjects = aliveObjects
            self.aliveBytes = aliveBytes
        }

        /// What identifies the site from one run to the next: the type, the file name (without its
        /// directory), the line and the function.
        public var key: String {
            "\(type) @ \(file.map { ReportNaming.place(file: $0, line: line) } ?? "?") in \(function ?? "?")"
        }
    }

    /// The objects of one type, over all its creation sites.
    public struct TypeTotal: Sendable, Codable, Hashable {
        /// The type's name.
        public var type: String
        /// Objects made.
        public var objects: Int
        /// Their bytes.
        public var bytes: Int
        /// Of those, objects still alive at the end.
        public var aliveObjects: Int
        /// Their bytes.
        public var aliveBytes: Int
    }

    /// Objects made.
    public var objects: Int
    /// Their bytes.
    public var bytes: Int
    /// Of those, objects still alive at the end.
    public var aliveObjects: Int
    /// Their bytes.
    public var aliveBytes: Int
    /// Every type and creation site, the most objects first (then the most bytes, then by type and site).
    public var sites: [Site]
    /// Objects left out because the test libraries made them for themselves (0 outside tests).
    public var excludedObjects: Int
    /// Their bytes.
    public var excludedBytes: Int

    /// A profile of `sites` (rows of one type and site are summed); the totals are theirs.
    public init(sites: [Site], excludedObjects: Int = 0, excludedBytes: Int = 0) {
        var merged: [String: Site] = [:]
        for site in sites {
            if var known = merged[site.key] {
                known.objects += site.objects
                known.bytes += site.bytes
                known.aliveObjects += site.aliveObjects
                known.aliveBytes += site.aliveBytes
                merged[site.key] = known
            } else {
                merged[site.key] = site
            }
        }
        self.sites = merged.values.sorted { a, b in
            if a.objects != b.objects { return a.objects > b.objects }
            if a.bytes != b.bytes { return a.bytes > b.bytes }
            return a.key < b.key
        }
        objects = self.sites.reduce(0) { $0 + $1.objects }
        bytes = self.sites.reduce(0) { $0 + $1.bytes }
        aliveObjects = self.sites.reduce(0) { $0 + $1.aliveObjects }
        aliveBytes = self.sites.reduce(0) { $0 + $1.aliveBytes }
        self.excludedObjects = excludedObjects
        self.excludedBytes = excludedBytes
    }

    /// The sum of `profiles` (sites of one type and creation site added up), or `nil` when there is
    /// none: the profile of several processes (`leakgraph test`, a script's programs).
    public init?(combining profiles: [AllocationProfile]) {
        guard !profiles.isEmpty else { return nil }
        self.init(
            sites: profiles.flatMap(\.sites), excludedObjects: profiles.reduce(0) { $0 + $1.excludedObjects },
            excludedBytes: profiles.reduce(0) { $0 + $1.excludedBytes })
    }

    /// An empty profile.
    public static let empty = AllocationProfile(sites: [])

    /// The objects by type, the most objects first.
    ///
    /// - Complexity: O(*s* log *s*) for *s* sites.
    public var types: [TypeTotal] {
        var totals: [String: TypeTotal] = [:]
        for site in sites {
            var total =
                totals[site.type] ?? TypeTotal(type: site.type, objects: 0, bytes: 0, aliveObjects: 0, aliveBytes: 0)
            total.objects += site.objects
            total.bytes += site.bytes
            total.aliveObjects += site.aliveObjects
            total.aliveBytes += site.aliveBytes
            totals[site.type] = total
        }
        return totals.values.sorted { a, b in
            if a.objects != b.objects { return a.objects > b.objects }
            if a.bytes != b.bytes { return a.bytes > b.bytes }
            return a.type < b.type
        }
    }

    /// Whether `type` (a full name such as `App.Widget`) is the type `name` names: the full name, or
    /// the name without its module (`Widget`, `Box<Swift.Int>`) — as leak checks' ignored types match.
    public static func type(_ type: String, isNamed name: String) -> Bool {
        type == name || ReportNaming.shortName(type) == name
    }

    /// The objects made of the type `name` names (see ``type(_:isNamed:)``; several types may match).
    public func objects(ofType name: String) -> Int {
        sites.reduce(0) { $0 + (Self.type($1.type, isNamed: name) ? $1.objects : 0) }
    }

    /// The objects of the type `name` names still alive at the end.
    public func aliveObjects(ofType name: String) -> Int {
        sites.reduce(0) { $0 + (Self.type($1.type, isNamed: name) ? $1.aliveObjects : 0) }
    }
}
