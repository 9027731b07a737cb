import FoundationEssentials
import LeakGraphModel

/// Writes a ``HeapSnapshot`` into a new SQLite database (``SnapshotSchema``), in one transaction with
/// no journal: the file is only renamed into place once complete (``HeapSnapshotFile/write(_:to:progress:)``).
enum SnapshotWriter {
    static func write(_ snapshot: HeapSnapshot, to path: String, progress: ((_ done: Int, _ total: Int) -> Void)?)
        throws(SQLiteError)
    {
        let database = try SQLiteDatabase(path: path, readOnly: false)
        try database.execute(
            """
            PRAGMA page_size = 8192; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
            PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768;
            PRAGMA application_id = \(SnapshotSchema.applicationID); PRAGMA user_version = \(HeapSnapshot.formatVersion);
            BEGIN;
            """)
        try database.execute(SnapshotSchema.create)
        try writeInfo(snapshot, database)
        try writeTables(snapshot, database)
        let total = snapshot.objects.count + snapshot.references.count
        try writeObjects(snapshot, database, progress: progress.map { report in { report($0, total) } })
        try database.execute("COMMIT;")
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    private static func writeInfo(_ snapshot: HeapSnapshot, _ database: SQLiteDatabase) throws(SQLiteError) {
        let info = snapshot.info
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let text: [(String, String)] = [
            ("origin", info.origin.rawValue), ("program_path", info.programPath), ("arguments", json(info.arguments)),
            ("leakgraph_version", info.leakGraphVersion),
            ("time_utc", format.format(Date(timeIntervalSince1970: info.time))),
        ]
        let integers: [(String, Int)] = [
            ("format_version", HeapSnapshot.formatVersion), ("process_id", info.processID),
            ("tracked_objects", info.trackedObjects), ("objects", snapshot.objects.count),
            ("references", snapshot.references.count),
        ]
        let statement = try database.prepare("INSERT INTO info VALUES (?, ?)")
        for (key, value) in text {
            statement.bind(1, key)
            statement.bind(2, value)
            try statement.run()
        }
        for (key, value) in integers {
            statement.bind(1, key)
            statement.bind(2, Int64(value))
            try statement.run()
        }
        let time = try database.prepare("INSERT INTO info VALUES ('time', ?)")
        time.bind(1, info.time)
        try time.run()
    }

    /// Types, frames, stacks, paths, roots and diagnostics: the small tables.
    private static func writeTables(_ snapshot: HeapSnapshot, _ database: SQLiteDatabase) throws(SQLiteError) {
        let types = try database.prepare("INSERT INTO type VALUES (?, ?, ?, ?, ?, ?)")
        for (id, type) in snapshot.types.enumerated() {
            types.bind(1, Int64(id))
            types.bind(2, type.name)
            types.bind(3, type.kind.rawValue)
            types.bind(4, type.module)
            types.bind(5, json(type.superclasses))
            types.bind(6, Int64(type.isProgram ? 1 : 0))
            try types.run()
        }
        let frames = try database.prepare("INSERT INTO frame VALUES (?, ?, ?, ?, ?, ?)")
        for (id, frame) in snapshot.frames.enumerated() {
            frames.bind(1, Int64(id))
            frames.bind(2, frame.function)
            frames.bind(3, frame.file)
            if let line = frame.line { frames.bind(4, Int64(line)) } else { frames.bindNull(4) }
            frames.bind(5, frame.module)
            frames.bind(6, frame.category.rawValue)
            try frames.run()
        }
        let stackFrames = try BatchedRows(database, table: "stack_frame", integers: 3)
        for (id, stack) in snapshot.stacks.enumerated() {
            for (depth, frame) in stack.enumerated() {
                try stackFrames.add { row in
                    row[row.startIndex] = Int64(id)
                    row[row.startIndex + 1] = Int64(depth)
                    row[row.startIndex + 2] = Int64(frame)
                }
            }
        }
        try stackFrames.finish()
        let paths = try database.prepare("INSERT INTO path VALUES (?, ?, ?, ?)")
        for (id, path) in snapshot.paths.enumerated() {
            paths.bind(1, Int64(id))
            paths.bind(2, path.steps.text)
            paths.bind(3, path.ownership.rawValue)
            paths.bind(4, json(path.steps))
            try paths.run()
        }
        let roots = try database.prepare("INSERT INTO root VALUES (?, ?, ?, ?, ?, ?)")
        for root in snapshot.roots {
            roots.bind(1, Int64(root.object))
            roots.bind(2, Int64(root.unexplainedRetains))
            roots.bind(3, root.holder.kind.rawValue)
            roots.bind(4, root.holder.name)
            roots.bind(5, root.holder.location)
            roots.bind(6, root.holder.address)
            try roots.run()
        }
        let diagnostics = try database.prepare("INSERT INTO diagnostic VALUES (?, ?, ?, ?, ?)")
        for (id, diagnostic) in snapshot.diagnostics.enumerated() {
            diagnostics.bind(1, Int64(id))
            diagnostics.bind(2, diagnostic.typeName)
            diagnostics.bind(3, diagnostic.reason)
            diagnostics.bind(4, Int64(diagnostic.objectCount))
            diagnostics.bind(5, diagnostic.site)
            try diagnostics.run()
        }
    }

    /// The object table: each object's columns, then its references (``SnapshotSchema``): the JSON
    /// array of their targets and the id of their path list, interned here and written after.
    private static func writeObjects(_ snapshot: HeapSnapshot, _ database: SQLiteDatabase, progress: ((Int) -> Void)?)
        throws(SQLiteError)
    {
        let rows = try BatchedRows(database, table: "object", integers: 9, text: true)
        let objects = snapshot.objects
        let references = snapshot.references
        var lists = PathLists(typeCount: snapshot.types.count)
        for id in 0..<objects.count {
            if id % SnapshotReader.progressRows == 0, id > 0 { progress?(references.range(of: id).lowerBound + id) }
            let range = references.range(of: id)
            let list = range.isEmpty ? nil : lists.intern(references, range, type: Int(objects.type[id]))
            try rows.add { row in
                let start = row.startIndex
                let stack = objects.stack[id]
                let flags = objects.flags[id]
                row[start] = Int64(id)
                row[start + 1] = Int64(bitPattern: objects.address[id])
                row[start + 2] = Int64(objects.type[id])
                row[start + 3] = Int64(clamping: objects.size[id])
                row[start + 4] = Int64(objects.retainCount[id])
                row[start + 5] = stack < 0 ? BatchedRows.null : Int64(stack)
                row[start + 6] = flags.contains(.leaked) ? 1 : 0
                row[start + 7] = flags.contains(.orphan) ? 1 : 0
                row[start + 8] = list.map { Int64($0) } ?? BatchedRows.null
            } text: { text in
                guard !range.isEmpty else { return }
                text.append(UInt8(ascii: "["))
                for index in range {
                    if index != range.lowerBound { text.append(UInt8(ascii: ",")) }
                    appendDecimal(Int(references.targets[index]), to: &text)
                }
                text.append(UInt8(ascii: "]"))
            }
        }
        try rows.finish()
        let statement = try database.prepare("INSERT INTO path_list VALUES (?, ?, ?)")
        for (id, list) in lists.lists.enumerated() {
            statement.bind(1, Int64(id))
            statement.bind(2, "[" + list.paths.map(String.init).joined(separator: ",") + "]")
            if list.elements.allSatisfy({ $0 < 0 }) {
                statement.bindNull(3)
            } else {
                statement.bind(3, "[" + list.elements.map { $0 < 0 ? "null" : String($0) }.joined(separator: ",") + "]")
            }
            try statement.run()
        }
    }

    @inline(__always)
    private static func appendDecimal(_ value: Int, to text: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

/// The distinct lists of (path, element) that objects' references have, in the order first seen: the
/// rows of the `path_list` table. Objects of one type mostly share one list, so each type's last list
/// is compared before any hashing.
private struct PathLists {
    struct List: Hashable {
        var paths: [UInt32]
        var elements: [Int32]
    }
    private(set) var lists: [List] = []
    private var index: [List: Int] = [:]
    private var lastOfType: [Int]

    init(typeCount: Int) {
        lastOfType = [Int](repeating: -1, count: typeCount)
    }

    mutating func intern(_ references: HeapSnapshot.References, _ range: Range<Int>, type: Int) -> Int {
        let last = type < lastOfType.count ? lastOfType[type] : -1
        if last >= 0, lists[last].paths.elementsEqual(references.paths[range]),
            lists[last].elements.elementsEqual(references.elements[range])
        {
            return last
        }
        let list = List(paths: Array(references.paths[range]), elements: Array(references.elements[range]))
        let id: Int
        if let known = index[list] {
            id = known
        } else {
            id = lists.count
            lists.append(list)
            index[list] = id
        }
        if type < lastOfType.count { lastOfType[type] = id }
        return id
    }
}
