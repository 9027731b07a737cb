import CSQLite
import FoundationEssentials
import LeakGraphModel

/// Reads a snapshot file written by ``SnapshotWriter``, checking as it goes that it is whole: the
/// format version, every table's numbering and every index into another table. Any failure is one
/// ``SnapshotFileError``.
enum SnapshotReader {
    static func read(from path: String) throws(SnapshotFileError) -> HeapSnapshot {
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
                    message: "\(path) was written by a newer LeakGraph (snapshot format \(version); this build reads format "
                        + "\(HeapSnapshot.formatVersion) and older): update LeakGraph to read it")
            }
            guard version >= 1 else { throw damaged("no snapshot format version") }
            return try read(database)
        } catch let error as SnapshotFileError {
            throw SnapshotFileError(code: error.code, message: error.message.replacing("@PATH", with: path))
        } catch let error as SQLiteError {
            if error.code == SQLITE_CANTOPEN || error.code == SQLITE_PERM {
                throw SnapshotFileError(code: .unreadable, message: "cannot read \(path): \(error.message)")
            }
            throw SnapshotFileError(
                code: .damaged, message: "cannot read the snapshot \(path): the file is truncated or damaged (\(error.message))")
        } catch {
            throw SnapshotFileError(code: .damaged, message: "cannot read the snapshot \(path): \(error)")
        }
    }

    private static func damaged(_ reason: String) -> SnapshotFileError {
        SnapshotFileError(code: .damaged, message: "cannot read the snapshot @PATH: the file is truncated or damaged (\(reason))")
    }

    private static func json<T: Decodable>(_ type: T.Type, _ text: String?) throws -> T {
        guard let text else { throw damaged("a JSON column is empty") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw damaged("a JSON column does not decode: \(error)")
        }
    }

    private static func read(_ database: SQLiteDatabase) throws -> HeapSnapshot {
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
                origin: origin, programPath: texts["program_path"] ?? "", arguments: try json([String].self, texts["arguments"] ?? "[]"),
                processID: Int(numbers["process_id"] ?? 0), time: numbers["time"] ?? 0,
                leakGraphVersion: texts["leakgraph_version"] ?? "", trackedObjects: Int(numbers["tracked_objects"] ?? 0)))

        let types = try database.prepare("SELECT id, name, kind, module, superclasses, is_program FROM type ORDER BY id")
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
                    function: function, file: frames.text(2), line: frames.optionalInt64(3).map(Int.init), module: frames.text(4),
                    category: category))
        }
        let stackFrames = try database.prepare("SELECT stack_id, depth, frame_id FROM stack_frame ORDER BY stack_id, depth")
        while try stackFrames.step() {
            let stack = Int(stackFrames.int64(0))
            let frame = Int(stackFrames.int64(2))
            guard stack >= snapshot.stacks.count - 1, stack <= snapshot.stacks.count, snapshot.frames.indices.contains(frame)
            else { throw damaged("the stacks are not numbered from 0") }
            if stack == snapshot.stacks.count { snapshot.stacks.append([]) }
            guard stackFrames.int64(1) == snapshot.stacks[stack].count else { throw damaged("a stack's frames are not numbered from 0") }
            snapshot.stacks[stack].append(frame)
        }
        let paths = try database.prepare("SELECT id, ownership, steps FROM path ORDER BY id")
        while try paths.step() {
            guard paths.int64(0) == snapshot.paths.count, let ownership = paths.text(1).flatMap(Ownership.init(rawValue:)) else {
                throw damaged("the path table is not numbered from 0")
            }
            snapshot.paths.append(HeapSnapshot.Path(steps: try json(ReferencePath.self, paths.text(2)), ownership: ownership))
        }

        snapshot.objects.reserveCapacity(objectCount)
        let objects = try database.prepare(
            "SELECT id, address, type_id, size, retain_count, stack_id, leaked, orphan FROM object ORDER BY id")
        let typeCount = snapshot.types.count
        let stackCount = snapshot.stacks.count
        while try objects.step() {
            let id = snapshot.objects.count
            let type = Int(objects.int64(2))
            let stack = objects.optionalInt64(5).map(Int.init)
            guard objects.int64(0) == id, type >= 0, type < typeCount, stack.map({ $0 >= 0 && $0 < stackCount }) ?? true else {
                throw damaged("object \(id) names a type or stack that does not exist")
            }
            var flags: HeapSnapshot.Objects.Flags = []
            if objects.int64(6) != 0 { flags.insert(.leaked) }
            if objects.int64(7) != 0 { flags.insert(.orphan) }
            snapshot.objects.append(
                address: UInt64(bitPattern: objects.int64(1)), type: type, size: Int(objects.int64(3)),
                retainCount: Int(objects.int64(4)), stack: stack, flags: flags)
        }
        guard snapshot.objects.count == objectCount else {
            throw damaged("\(snapshot.objects.count) objects of \(objectCount)")
        }

        var references = HeapSnapshot.References()
        references.offsets.reserveCapacity(objectCount + 1)
        references.targets.reserveCapacity(referenceCount)
        references.paths.reserveCapacity(referenceCount)
        references.elements.reserveCapacity(referenceCount)
        let rows = try database.prepare("SELECT from_id, to_id, path_id, element FROM reference ORDER BY rowid")
        let pathCount = snapshot.paths.count
        var source = 0
        while try rows.step() {
            let from = Int(rows.int64(0))
            let to = Int(rows.int64(1))
            let path = Int(rows.int64(2))
            guard from >= source, from < objectCount, to >= 0, to < objectCount, path >= 0, path < pathCount else {
                throw damaged("reference \(references.count) names an object or path that does not exist")
            }
            while source < from {
                references.endObject()
                source += 1
            }
            references.append(target: to, path: path, element: rows.optionalInt64(3).map(Int.init))
        }
        while source < objectCount {
            references.endObject()
            source += 1
        }
        guard references.count == referenceCount else { throw damaged("\(references.count) references of \(referenceCount)") }
        snapshot.references = references

        let roots = try database.prepare(
            "SELECT object_id, unexplained_retains, holder_kind, holder_name, holder_location, holder_address FROM root ORDER BY object_id")
        while try roots.step() {
            let object = Int(roots.int64(0))
            guard object >= 0, object < objectCount, let kind = roots.text(2).flatMap(RootHolder.Kind.init(rawValue:)) else {
                throw damaged("a root names an object that does not exist")
            }
            snapshot.roots.append(
                HeapSnapshot.Root(
                    object: object, unexplainedRetains: Int(roots.int64(1)),
                    holder: RootHolder(kind: kind, name: roots.text(3), location: roots.text(4), address: roots.text(5))))
        }
        let diagnostics = try database.prepare("SELECT type, reason, object_count, site FROM diagnostic ORDER BY id")
        while try diagnostics.step() {
            snapshot.diagnostics.append(
                WalkDiagnostic(
                    typeName: diagnostics.text(0) ?? "", reason: diagnostics.text(1) ?? "", objectCount: Int(diagnostics.int64(2)),
                    site: diagnostics.text(3)))
        }
        return snapshot
    }
}
