import FoundationEssentials

/// What a program allocated between a generation mark and now and still holds
/// (`Generation.growth(limit:)`): objects grouped by type and creation site, most bytes first.
/// Growth is not a leak — a cache may be meant to grow — but a group that grows at every mark is
/// memory to look at.
public struct GenerationGrowth: Sendable, Codable, Hashable {
    /// One group: the live objects of one type made at one creation site since the mark.
    public struct Row: Sendable, Codable, Hashable {
        /// The objects' type, fully qualified.
        public var type: String
        /// Where they were created: the first frame of the program's own code with a file and line
        /// that is not compiler-generated (as leak reports name it: `main.swift:35`); `nil` when no
        /// stack was recorded.
        public var site: String?
        /// The function of that frame.
        public var function: String?
        /// How many objects.
        public var count: Int
        /// Their allocated bytes.
        public var bytes: Int

        /// Creates a row.
        public init(type: String, site: String?, function: String?, count: Int, bytes: Int) {
            self.type = type
            self.site = site
            self.function = function
            self.count = count
            self.bytes = bytes
        }
    }

    /// When the generation was marked.
    public var since: Date
    /// When the growth was measured.
    public var until: Date
    /// Objects allocated since the mark and alive now.
    public var objects: Int
    /// Their bytes.
    public var bytes: Int
    /// The largest groups, most bytes first.
    public var rows: [Row]
    /// How many groups there were (``rows`` may hold fewer).
    public var groups: Int

    /// Creates a growth report.
    public init(since: Date, until: Date, objects: Int, bytes: Int, rows: [Row], groups: Int) {
        self.since = since
        self.until = until
        self.objects = objects
        self.bytes = bytes
        self.rows = rows
        self.groups = groups
    }
}
