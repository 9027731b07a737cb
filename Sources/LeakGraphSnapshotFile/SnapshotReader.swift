import CSQLite
import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif
import LeakGraphModel

/// Reads a snapshot file written by ``SnapshotWriter``, checking as it goes that it is whole: the
/// format version, every table's numbering and every index into another table. Any failure is one
/// ``SnapshotFileError``.
enum SnapshotReader {
    /// The rows between two calls of a progress closure.
    static let progressRows = 65_536

    static func read(from path: String, progress: ((_ done: Int, _ total: Int) -> Void)?) throws(SnapshotFileError)
        -> HeapSnapshot
    {
        do {
            let database = try SQLiteDatabase(path: path, readOnly: true)
            let application = try database.integer("PRAGMA application_id")
            guard application == SnapshotSchema.applicationID else {
                throw SnapshotFileError(
                    code: .notASnapshot, message: "\(path) is a SQLite database but not a LeakGraph snapshot")
            }
            let version = try database.integer("PRAGMA user_version")
            guard version <= HeapSnapshot.formatVersion else {
                throw SnapshotFileError(
                    code: .newerFormat,
                    message:
                        "\(path) was written by a newer LeakGraph (snapshot format \(version); this build reads format "
                        + "\(HeapSnapshot.formatVersion)): update LeakGraph to read it")
            }
            guard version >= 1 else { throw damaged("no snapshot format version") }
            guard version == HeapSnapshot.formatVersion else {
                throw SnapshotFileError(
                    code: .olderFormat,
                    message:
                        "\(path) was written by an older LeakGraph (snapshot format \(version); this build reads format "
                        + "\(HeapSnapshot.formatVersion)): take the snapshot again with this LeakGraph")
            }
            return try read(database, path: path, progress: progress)
        } catch let error as SnapshotFileError {
            throw SnapshotFileError(code: error.code, message: error.message.replacing("@PATH", with: path))
        } catch let error as SQLiteError {
            if error.code == SQLITE_CANTOPEN || error.code == SQLITE_PERM {
                throw SnapshotFileError(code: .unreadable, message: "cannot read \(path): \(error.message)")
            }
            throw SnapshotFileError(
                code: .damaged,
                message: "cannot read the snapshot \(path): the file is truncated or damaged (\(error.message))")
        } catch {
            throw SnapshotFileError(code: .damaged, message: "cannot read the snapshot \(path): \(error)")
        }
    }

    /// A damaged file's error: its message names the file once ``read(from:progress:)`` rethrows it.
    static func damaged(_ reason: String) -> SnapshotFileError {
        SnapshotFileError(
            code: .damaged, message: "cannot read the snapshot @PATH: the file is truncated or damaged (\(reason))")
    }

    private static func json<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw damaged("a JSON column is empty") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw damaged("a JSON column does not decode: \(error)")
        }
    }

    private static func read(_ database: SQLiteDatabase, path: String, progress: ((Int, Int) -> Void)?) throws
        -> HeapSnapshot
    {
        var texts: [String: String] = [:]
        var numbers: [String: Double] = [:]
        let info = try database.prepare("SELECT key, value, typeof(value) FROM info")
        while try info.step() {
            guard let key = info.text(0) else { continue }
            if info.text(2) == "text" { texts[key] = info.text(1) } else { numbers[key] = info.double(1) }
        }
        guard let origin = texts["origin"].flatMap(HeapSnapshot.Info.Origin.init(rawValue:)),
            let objectCount = numbers["objects"].map(Int.init), let referenceCount = numbers["references"].map(Int.init)
        else { throw damaged("the info table is incomplete") }
        var snapshot = HeapSnapshot(
            info: HeapSnapshot.Info(
                origin: origin, programPath: texts["program_path"] ?? "",
                arguments: try json([String].self, texts["arguments"] ?? "[]"),
                processID: Int(numbers["process_id"] ?? 0), time: numbers["time"] ?? 0,
                leakGraphVersion: texts["leakgraph_version"] ?? "", trackedObjects: Int(numbers["tracked_objects"] ?? 0)
            ))

        let types = try database.prepare(
            "SELECT id, name, kind, module, superclasses, is_program FROM type ORDER BY id")
        while try types.step() {
            guard types.int64(0) == snapshot.types.count, let name = types.text(1),
                let kind = types.text(2).flatMap(ObjectKind.init(rawValue:))
            else { throw damaged("the type table is not numbered from 0") }
            snapshot.types.append(
                HeapSnapshot.TypeInfo(
                    name: name, kind: kind, module: types.text(3), superclasses: try json([String].self, types.text(4)),
                    isProgram: types.int64(5) != 0))
        }
        let frames = try database.prepare("SELECT id, function, file, line, module, category FROM frame ORDER BY id")
        while try frames.step() {
            guard frames.int64(0) == snapshot.frames.count, let function = frames.text(1),
                let category = frames.text(5).flatMap(HeapSnapshot.Frame.Category.init(rawValue:))
            else { throw damaged("the frame table is not numbered from 0") }
            snapshot.frames.append(
                HeapSnapshot.Frame(
                    function: function, file: frames.text(2), line: frames.optionalInt64(3).map(Int.init),
                    module: frames.text(4),
                    category: category))
        }
        let stackFrames = try database.prepare(
            "SELECT stack_id, depth, frame_id FROM stack_frame ORDER BY stack_id, depth")
        while try stackFrames.step() {
            let stack = Int(stackFrames.int64(0))
            let frame = Int(stackFrames.int64(2))
            guard stack >= snapshot.stacks.count - 1, stack <= snapshot.stacks.count,
                snapshot.frames.indices.contains(frame)
            else { throw damaged("the stacks are not numbered from 0") }
            if stack == snapshot.stacks.count { snapshot.stacks.append([]) }
            guard stackFrames.int64(1) == snapshot.stacks[stack].count else {
                throw damaged("a stack's frames are not numbered from 0")
            }
            snapshot.stacks[stack].append(frame)
        }
        let paths = try database.prepare("SELECT id, ownership, steps FROM path ORDER BY id")
        while try paths.step() {
            guard paths.int64(0) == snapshot.paths.count,
                let ownership = paths.text(1).flatMap(Ownership.init(rawValue:))
            else {
                throw damaged("the path table is not numbered from 0")
            }
            snapshot.paths.append(
                HeapSnapshot.Path(steps: try json(ReferencePath.self, paths.text(2)), ownership: ownership))
        }

        let lists = try readPathLists(database, pathCount: snapshot.paths.count)

        // The object table, read into columns of the size the info table gives (no more than the file
        // could hold: a damaged count must not make a huge allocation).
        let fileBytes = try database.integer("PRAGMA page_count") * database.integer("PRAGMA page_size")
        guard objectCount >= 0, referenceCount >= 0, objectCount + referenceCount <= fileBytes / 2 else {
            throw damaged("the info table counts more rows than the file holds")
        }
        let columns = ObjectColumns(objects: objectCount, references: referenceCount)
        let limits = ObjectRowLimits(
            objects: objectCount, references: referenceCount, types: snapshot.types.count,
            stacks: snapshot.stacks.count, lists: lists)
        // The second half of the objects on a second connection and thread while this one reads the
        // first: on two cores the reading takes half the time. Its references go to a column of their
        // own, moved after the first half's when both are read.
        let half = objectCount / 2
        let second = BackgroundWork {
            try readObjects(
                SQLiteDatabase(path: path, readOnly: true), half..<objectCount, into: columns, inColumns: false,
                limits: limits, progress: nil)
        }
        let first = Result {
            try readObjects(
                database, 0..<half, into: columns, inColumns: true, limits: limits,
                progress: progress.map { report in { report(min(2 * $0, objectCount), objectCount) } })
        }
        let firstReferences = try first.get()
        let secondReferences = try second.result().get()
        snapshot.objects = columns.objects()
        snapshot.references = try columns.references(first: firstReferences, second: secondReferences)

        let roots = try database.prepare(
            "SELECT object_id, unexplained_retains, holder_kind, holder_name, holder_location, holder_address FROM root ORDER BY object_id"
        )
        while try roots.step() {
            let object = Int(roots.int64(0))
            guard object >= 0, object < objectCount, let kind = roots.text(2).flatMap(RootHolder.Kind.init(rawValue:))
            else {
                throw damaged("a root names an object that does not exist")
            }
            snapshot.roots.append(
                HeapSnapshot.Root(
                    object: object, unexplainedRetains: Int(roots.int64(1)),
                    holder: RootHolder(kind: kind, name: roots.text(3), location: roots.text(4), address: roots.text(5))
                ))
        }
        let diagnostics = try database.prepare("SELECT type, reason, object_count, site FROM diagnostic ORDER BY id")
        while try diagnostics.step() {
            snapshot.diagnostics.append(
                WalkDiagnostic(
                    typeName: diagnostics.text(0) ?? "", reason: diagnostics.text(1) ?? "",
                    objectCount: Int(diagnostics.int64(2)),
                    site: diagnostics.text(3)))
        }
        return snapshot
    }

    /// The path lists objects' references name (``SnapshotSchema``), every path in range.
    private static func readPathLists(_ database: SQLiteDatabase, pathCount: Int) throws -> [PathList] {
        var lists: [PathList] = []
        let rows = try database.prepare("SELECT id, paths, elements FROM path_list ORDER BY id")
        while try rows.step() {
            guard rows.int64(0) == lists.count else { throw damaged("the path_list table is not numbered from 0") }
            let paths = try json([Int].self, rows.text(1))
            let elements =
                try rows.text(2).map { try json([Int?].self, $0) } ?? Array(repeating: nil, count: paths.count)
            guard !paths.isEmpty, elements.count == paths.count, paths.allSatisfy({ $0 >= 0 && $0 < pathCount }) else {
                throw damaged("path list \(lists.count) names a path that does not exist")
            }
            lists.append(
                PathList(
                    paths: paths.map { UInt32($0) }, elements: elements.map { $0.map { Int32(clamping: $0) } ?? -1 }))
        }
        return lists
    }

    /// Objects `ids` of the object table, checked as they are read: numbered from 0, every type, stack
    /// and path list in range, as many targets as the path list has paths, every target an object.
    /// Their columns go into `columns`; their references into `columns`' reference columns when
    /// `inColumns` (the first range), otherwise into the ``ReadReferences`` returned.
    private static func readObjects(
        _ database: SQLiteDatabase, _ ids: Range<Int>, into columns: ObjectColumns, inColumns: Bool,
        limits: ObjectRowLimits, progress: ((Int) -> Void)?
    ) throws -> ReadReferences {
        let rows = try database.prepare(
            """
            SELECT id, address, type_id, size, retain_count, stack_id, leaked, orphan, path_list_id, targets
            FROM object WHERE id >= ? AND id < ? ORDER BY id
            """)
        rows.bind(1, Int64(ids.lowerBound))
        // The last range reads to the table's end, so that a row more than the info table counts is seen.
        rows.bind(2, ids.upperBound == limits.objects ? Int64.max : Int64(ids.upperBound))
        var read = ReadReferences(inColumns: inColumns)
        if !inColumns { read.reserve(limits.references / 2 + 1) }
        read.offsets.reserveCapacity(ids.count + 1)
        read.offsets.append(0)
        var id = ids.lowerBound
        while try rows.step() {
            let objectType = rows.int64(2)
            let objectStack = rows.optionalInt64(5) ?? -1
            let list = rows.optionalInt64(8) ?? -1
            guard id < ids.upperBound, rows.int64(0) == id, objectType >= 0, objectType < limits.types,
                objectStack >= -1, objectStack < limits.stacks, list >= -1, list < limits.lists.count
            else {
                throw damaged(
                    id < ids.upperBound
                        ? "object \(id) names a type, stack or path list that does not exist"
                        : "more objects than the info table counts")
            }
            columns.address[id] = UInt64(bitPattern: rows.int64(1))
            columns.type[id] = UInt32(objectType)
            columns.size[id] = UInt64(max(rows.int64(3), 0))
            columns.retainCount[id] = UInt32(clamping: max(rows.int64(4), 0))
            columns.stack[id] = Int32(objectStack)
            columns.flags[id] = HeapSnapshot.Objects.Flags(
                rawValue: (rows.int64(6) != 0 ? 1 : 0) | (rows.int64(7) != 0 ? 2 : 0))
            let text = rows.utf8(9)
            if list >= 0 {
                guard let text, try read.append(targets: text, list: limits.lists[Int(list)], limits, columns) else {
                    throw damaged("the references of object \(id) do not match their path list")
                }
            } else if text != nil {
                throw damaged("object \(id) has references but no path list")
            }
            read.offsets.append(UInt32(truncatingIfNeeded: read.count))
            id += 1
            if let progress, (id - ids.lowerBound) % progressRows == 0 { progress(id) }
        }
        guard id == ids.upperBound else { throw damaged("\(id) objects of \(limits.objects)") }
        return read
    }
}

/// One row of the `path_list` table: the paths of an object's references, and their array elements
/// (-1 for none).
private struct PathList {
    var paths: [UInt32]
    var elements: [Int32]
}

/// What the object rows are checked against.
private struct ObjectRowLimits: @unchecked Sendable {
    var objects: Int
    var references: Int
    var types: Int
    var stacks: Int
    var lists: [PathList]
}

/// The columns of a snapshot's objects and references while they are read, filled by index from two
/// threads (each its own objects).
private final class ObjectColumns: @unchecked Sendable {
    let objectCount: Int
    let referenceCount: Int
    let address: Column<UInt64>
    let type: Column<UInt32>
    let size: Column<UInt64>
    let retainCount: Column<UInt32>
    let stack: Column<Int32>
    let flags: Column<HeapSnapshot.Objects.Flags>
    let targets: Column<UInt32>
    let paths: Column<UInt32>
    let elements: Column<Int32>

    init(objects: Int, references: Int) {
        objectCount = objects
        referenceCount = references
        address = Column(count: objects)
        type = Column(count: objects)
        size = Column(count: objects)
        retainCount = Column(count: objects)
        stack = Column(count: objects)
        flags = Column(count: objects)
        targets = Column(count: references)
        paths = Column(count: references)
        elements = Column(count: references)
    }

    /// The objects' columns as arrays (the columns are freed).
    func objects() -> HeapSnapshot.Objects {
        var objects = HeapSnapshot.Objects()
        objects.address = address.array(objectCount)
        objects.type = type.array(objectCount)
        objects.size = size.array(objectCount)
        objects.retainCount = retainCount.array(objectCount)
        objects.stack = stack.array(objectCount)
        objects.flags = flags.array(objectCount)
        return objects
    }

    /// The references: the first half's, read into the columns, then the second half's, moved after
    /// them; checked to be as many as the info table counts.
    func references(first: ReadReferences, second: ReadReferences) throws -> HeapSnapshot.References {
        guard first.count + second.count == referenceCount else {
            throw SnapshotReader.damaged("\(first.count + second.count) references of \(referenceCount)")
        }
        for index in 0..<second.count {
            targets[first.count + index] = second.targets[index]
            paths[first.count + index] = second.paths[index]
            elements[first.count + index] = second.elements[index]
        }
        var references = HeapSnapshot.References()
        var offsets = first.offsets
        offsets.reserveCapacity(objectCount + 1)
        let base = UInt32(first.count)
        for offset in second.offsets.dropFirst() { offsets.append(base + offset) }
        references.offsets = offsets
        references.targets = targets.array(referenceCount)
        references.paths = paths.array(referenceCount)
        references.elements = elements.array(referenceCount)
        return references
    }
}

/// The references of a range of objects while they are read: into the shared columns (the first
/// range), or into arrays of their own.
private struct ReadReferences {
    let inColumns: Bool
    var count = 0
    var offsets: [UInt32] = []
    var targets: [UInt32] = []
    var paths: [UInt32] = []
    var elements: [Int32] = []

    init(inColumns: Bool) { self.inColumns = inColumns }

    mutating func reserve(_ count: Int) {
        targets.reserveCapacity(count)
        paths.reserveCapacity(count)
        elements.reserveCapacity(count)
    }

    /// Appends the references whose targets are the JSON array `text` and whose paths are `list`;
    /// `false` when the text is not an array of as many object ids as the list has paths.
    mutating func append(
        targets text: UnsafeBufferPointer<UInt8>, list: PathList, _ limits: ObjectRowLimits, _ columns: ObjectColumns
    ) throws -> Bool {
        guard text.count >= 3, text[0] == UInt8(ascii: "["), text[text.count - 1] == UInt8(ascii: "]") else {
            return false
        }
        var position = 0
        var value = 0
        var digits = 0
        for index in 1..<text.count {
            let byte = text[index]
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard digits <= 10 else { return false }
                continue
            }
            guard byte == UInt8(ascii: ",") || index == text.count - 1, digits > 0, position < list.paths.count,
                value < limits.objects
            else { return false }
            guard count < limits.references else {
                throw SnapshotReader.damaged("more references than the info table counts")
            }
            if inColumns {
                columns.targets[count] = UInt32(value)
                columns.paths[count] = list.paths[position]
                columns.elements[count] = list.elements[position]
            } else {
                targets.append(UInt32(value))
                paths.append(list.paths[position])
                elements.append(list.elements[position])
            }
            count += 1
            position += 1
            value = 0
            digits = 0
        }
        return position == list.paths.count
    }
}

/// One column of a big table while it is read: room for the count the info table gives, filled by
/// index (plain values only), then moved into an array by ``array(_:)``, which frees it (so that the
/// columns of ten million objects are not held twice).
private final class Column<Element> {
    private let base: UnsafeMutablePointer<Element>
    private var freed = false

    init(count: Int) {
        base = .allocate(capacity: max(count, 1))
    }

    deinit {
        if !freed { base.deallocate() }
    }

    subscript(index: Int) -> Element {
        get { base[index] }
        set { (base + index).initialize(to: newValue) }
    }

    /// The first `count` entries, all written, as an array; the column is freed.
    func array(_ count: Int) -> [Element] {
        precondition(!freed)
        defer {
            base.deallocate()
            freed = true
        }
        return Array(UnsafeBufferPointer(start: base, count: count))
    }
}

/// Work done on a thread of its own (a POSIX thread: this module uses FoundationEssentials only), its
/// result taken by ``result()``, which waits for it. When no thread can be made, the work is done at
/// once on the caller's.
final class BackgroundWork<Value>: @unchecked Sendable {
    private var work: (() throws -> Value)?
    private var value: Result<Value, any Error>?
    private var thread: pthread_t?

    init(_ work: @escaping () throws -> Value) {
        self.work = work
        let runner = Unmanaged.passRetained(BackgroundWorkRunner { [self] in run() }).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { runner in
                Unmanaged<BackgroundWorkRunner>.fromOpaque(runner!).takeRetainedValue().run()
                return nil
            }, runner)
        if status == 0 {
            self.thread = thread
        } else {
            Unmanaged<BackgroundWorkRunner>.fromOpaque(runner).release()
            run()
        }
    }

    private func run() {
        guard let work else { return }
        self.work = nil
        value = Result { try work() }
    }

    /// The work's result, once its thread has ended.
    func result() -> Result<Value, any Error> {
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        return value!
    }
}

/// The non-generic start of a ``BackgroundWork``'s thread (a C function cannot name a generic type).
private final class BackgroundWorkRunner {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
