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
                        + "\(HeapSnapshot.formatVersion) and older): update LeakGraph to read it")
            }
            guard version >= 1 else { throw damaged("no snapshot format version") }
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

    private static func damaged(_ reason: String) -> SnapshotFileError {
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

        // The two big tables, read into columns of the size the info table gives (no more than the
        // file could hold: a damaged count must not make a huge allocation).
        let fileBytes = try database.integer("PRAGMA page_count") * database.integer("PRAGMA page_size")
        guard objectCount >= 0, referenceCount >= 0, objectCount + referenceCount <= fileBytes / 4 else {
            throw damaged("the info table counts more rows than the file holds")
        }
        // The objects on a second connection and thread while this one reads the references (twice
        // as many rows): on two cores the reading takes the time of the references alone.
        let typeCount = snapshot.types.count
        let stackCount = snapshot.stacks.count
        let objects = BackgroundWork {
            try readObjects(
                SQLiteDatabase(path: path, readOnly: true), count: objectCount, typeCount: typeCount,
                stackCount: stackCount)
        }
        let references = Result {
            try readReferences(
                database, count: referenceCount, objectCount: objectCount, pathCount: snapshot.paths.count,
                progress: progress.map { report in { report($0, referenceCount) } })
        }
        snapshot.objects = try objects.result().get()
        snapshot.references = try references.get()

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

    /// The object table, checked as it is read: numbered from 0, every type and stack in range.
    private static func readObjects(_ database: SQLiteDatabase, count: Int, typeCount: Int, stackCount: Int) throws
        -> HeapSnapshot.Objects
    {
        let address = Column<UInt64>(count: count)
        let type = Column<UInt32>(count: count)
        let size = Column<UInt64>(count: count)
        let retainCount = Column<UInt32>(count: count)
        let stack = Column<Int32>(count: count)
        let flags = Column<HeapSnapshot.Objects.Flags>(count: count)
        let rows = try database.prepare(
            "SELECT id, address, type_id, size, retain_count, stack_id, leaked, orphan FROM object ORDER BY id")
        var id = 0
        while try rows.step() {
            let objectType = rows.int64(2)
            let objectStack = rows.optionalInt64(5) ?? -1
            guard id < count, rows.int64(0) == id, objectType >= 0, objectType < typeCount, objectStack >= -1,
                objectStack < stackCount
            else {
                throw damaged(
                    id < count
                        ? "object \(id) names a type or stack that does not exist"
                        : "more objects than the info table counts")
            }
            address[id] = UInt64(bitPattern: rows.int64(1))
            type[id] = UInt32(objectType)
            size[id] = UInt64(max(rows.int64(3), 0))
            retainCount[id] = UInt32(clamping: max(rows.int64(4), 0))
            stack[id] = Int32(objectStack)
            flags[id] = HeapSnapshot.Objects.Flags(
                rawValue: (rows.int64(6) != 0 ? 1 : 0) | (rows.int64(7) != 0 ? 2 : 0))
            id += 1
        }
        guard id == count else { throw damaged("\(id) objects of \(count)") }
        var objects = HeapSnapshot.Objects()
        objects.address = address.array(count)
        objects.type = type.array(count)
        objects.size = size.array(count)
        objects.retainCount = retainCount.array(count)
        objects.stack = stack.array(count)
        objects.flags = flags.array(count)
        return objects
    }

    /// The reference table in the walk's order, checked as it is read: grouped by source object, every
    /// object and path in range.
    private static func readReferences(
        _ database: SQLiteDatabase, count: Int, objectCount: Int, pathCount: Int, progress: ((Int) -> Void)?
    ) throws -> HeapSnapshot.References {
        let offsets = Column<UInt32>(count: objectCount + 1)
        let targets = Column<UInt32>(count: count)
        let paths = Column<UInt32>(count: count)
        let elements = Column<Int32>(count: count)
        let rows = try database.prepare("SELECT from_id, to_id, path_id, element FROM reference ORDER BY rowid")
        var index = 0
        var source = 0
        offsets[0] = 0
        while try rows.step() {
            let from = Int(rows.int64(0))
            let to = rows.int64(1)
            let path = rows.int64(2)
            guard index < count, from >= source, from < objectCount, to >= 0, to < objectCount, path >= 0,
                path < pathCount
            else {
                throw damaged(
                    index < count
                        ? "reference \(index) names an object or path that does not exist"
                        : "more references than the info table counts")
            }
            while source < from {
                source += 1
                offsets[source] = UInt32(index)
            }
            targets[index] = UInt32(to)
            paths[index] = UInt32(path)
            elements[index] = rows.optionalInt64(3).map { Int32(clamping: $0) } ?? -1
            index += 1
            if index % progressRows == 0 { progress?(index) }
        }
        guard index == count else { throw damaged("\(index) references of \(count)") }
        while source < objectCount {
            source += 1
            offsets[source] = UInt32(index)
        }
        var references = HeapSnapshot.References()
        references.offsets = offsets.array(objectCount + 1)
        references.targets = targets.array(count)
        references.paths = paths.array(count)
        references.elements = elements.array(count)
        return references
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
