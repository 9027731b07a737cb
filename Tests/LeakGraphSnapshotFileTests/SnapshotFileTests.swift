import Foundation
import LeakGraphModel
import LeakGraphReport
@testable import LeakGraphSnapshotFile
import LeakGraphTestSupport
import Testing

/// Snapshot files: written and read back equal, and every kind of bad file refused with one error.
struct SnapshotFileTests {
    /// A small snapshot with every table filled: types, frames, stacks, paths (with an array element),
    /// objects with flags, references, roots and diagnostics.
    static var sample: HeapSnapshot {
        var snapshot = HeapSnapshot(
            info: HeapSnapshot.Info(
                programPath: "/tmp/app", arguments: ["serve", "--port", "8080"], processID: 4242, time: 1_800_000_000.25,
                trackedObjects: 9))
        snapshot.types = [
            HeapSnapshot.TypeInfo(name: "App.Cache", kind: .class, module: "App", superclasses: ["App.Base"], isProgram: true),
            HeapSnapshot.TypeInfo(name: "Swift._ContiguousArrayStorage<App.Blob>", kind: .arrayStorage, module: "Swift"),
            HeapSnapshot.TypeInfo(name: "App.Blob", kind: .class, module: "App", isProgram: true),
        ]
        snapshot.frames = [
            HeapSnapshot.Frame(function: "App.Cache.init()", file: "/src/Cache.swift", line: 12, module: "/tmp/app", category: .program),
            HeapSnapshot.Frame(function: "Swift.Array.append(_:)", module: "/usr/lib/swift/linux/libswiftCore.so", category: .library),
        ]
        snapshot.stacks = [[0], [1, 0]]
        var paths = SnapshotPathTable()
        let blobs = paths.intern(.property("blobs"), ownership: .strong)
        let element = paths.intern([.element(1)], ownership: .strong)
        let owner = paths.intern(.property("owner"), ownership: .weak)
        snapshot.objects.append(address: 0x1000, type: 0, size: 48, retainCount: 1, stack: 0)
        snapshot.objects.append(address: 0x1040, type: 1, size: 64, retainCount: 1, stack: 1)
        snapshot.objects.append(address: 0x1080, type: 2, size: 32, retainCount: 1, stack: nil, flags: [.leaked, .orphan])
        snapshot.references.append(target: 1, path: blobs.path, element: blobs.element)
        snapshot.references.endObject()
        snapshot.references.append(target: 2, path: element.path, element: element.element)
        snapshot.references.endObject()
        snapshot.references.append(target: 0, path: owner.path, element: owner.element)
        snapshot.references.endObject()
        snapshot.paths = paths.paths
        snapshot.roots = [
            HeapSnapshot.Root(
                object: 0, unexplainedRetains: 1,
                holder: RootHolder(kind: .global, name: "App.cache", location: "app", address: "0x5000"))
        ]
        snapshot.diagnostics = [WalkDiagnostic(typeName: "App.Opaque", reason: "no metadata", objectCount: 3, site: "main.swift:3 in f()")]
        return snapshot
    }

    private func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("snapshotfile-\(getpid())-\(name)").path
    }

    @Test func writtenAndReadBackIsEqual() throws {
        let path = temporaryPath("roundtrip.lgsnap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HeapSnapshotFile.write(Self.sample, to: path)
        #expect(try HeapSnapshotFile.read(from: path) == Self.sample)
        #expect(Self.sample.path(ofReference: 1).text == "[1]")
    }

    @Test func aTruncatedFileIsDamaged() throws {
        let path = temporaryPath("truncated.lgsnap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HeapSnapshotFile.write(Self.sample, to: path)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: path) }
        #expect(error?.code == .damaged)
        #expect(error?.message.contains(path) == true)
    }

    @Test func aCorruptFileIsDamaged() throws {
        let path = temporaryPath("corrupt.lgsnap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HeapSnapshotFile.write(Self.sample, to: path)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        // Overwrite every page after the first (the header and schema) with noise.
        for index in 8192 ..< data.count { data[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try data.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: path) }
        #expect(error?.code == .damaged)
    }

    @Test func aNewerFormatIsRefused() throws {
        let path = temporaryPath("newer.lgsnap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HeapSnapshotFile.write(Self.sample, to: path)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[63] = 99  // `PRAGMA user_version`: bytes 60–63 of the header, big-endian
        try data.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: path) }
        #expect(error?.code == .newerFormat)
        #expect(error?.message.contains("newer LeakGraph") == true)
    }

    @Test func anOlderFormatIsRefused() throws {
        let path = temporaryPath("older.lgsnap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try HeapSnapshotFile.write(Self.sample, to: path)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data[63] == UInt8(HeapSnapshot.formatVersion))
        data[63] = 1  // format 1: one row per reference
        try data.write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: path) }
        #expect(error?.code == .olderFormat)
        #expect(error?.message == "\(path) was written by an older LeakGraph (snapshot format 1; this build reads format 2): take the snapshot again with this LeakGraph")
    }

    /// The `reference` and `reference_path` views, which SQLite alone computes from the objects'
    /// `targets` and path lists, give every reference with its path, in the walk's order.
    @Test func theReferenceViewsListEveryReference() throws {
        let path = temporaryPath("views.lgsnap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var sample = Self.sample
        // A second array with the same paths and elements shares the first one's path list; a third
        // has a reference in an element and one not.
        sample.objects.append(address: 0x10c0, type: 1, size: 64, retainCount: 1, stack: nil)
        sample.references.append(target: 0, path: Int(sample.references.paths[1]), element: 1)
        sample.references.endObject()
        sample.objects.append(address: 0x1100, type: 1, size: 64, retainCount: 1, stack: nil)
        sample.references.append(target: 2, path: Int(sample.references.paths[1]), element: 1)
        sample.references.append(target: 0, path: Int(sample.references.paths[0]), element: nil)
        sample.references.endObject()
        try HeapSnapshotFile.write(sample, to: path)
        #expect(try HeapSnapshotFile.read(from: path) == sample)
        let database = try SQLiteDatabase(path: path, readOnly: true)
        let rows = try database.prepare(
            "SELECT r.from_id, r.position, r.to_id, r.path_id, r.element, p.path, p.ownership FROM reference r "
                + "JOIN reference_path p ON p.from_id = r.from_id AND p.position = r.position ORDER BY r.from_id, r.position")
        var read: [String] = []
        while try rows.step() {
            read.append(
                "\(rows.int64(0)) \(rows.int64(1)) → \(rows.int64(2)) path \(rows.int64(3)) element \(rows.optionalInt64(4).map(String.init) ?? "-") \(rows.text(5) ?? "?") \(rows.text(6) ?? "?")")
        }
        var expected: [String] = []
        for source in 0..<sample.objects.count {
            for (position, reference) in sample.references(from: source).enumerated() {
                expected.append(
                    "\(source) \(position) → \(reference.to) path \(reference.path) element \(reference.element.map(String.init) ?? "-") \(sample.path(ofReference: reference.id).text) \(sample.ownership(ofReference: reference.id).rawValue)")
            }
        }
        #expect(read == expected)
        #expect(read[1] == "1 0 → 2 path 1 element 1 [1] strong")
        #expect(read.suffix(3) == ["3 0 → 0 path 1 element 1 [1] strong", "4 0 → 2 path 1 element 1 [1] strong", "4 1 → 0 path 0 element - blobs strong"])
        #expect(try database.integer("SELECT count(*) FROM path_list") == 4)
    }

    /// Rows that do not agree with each other or with the info table: one "damaged" error each.
    @Test func inconsistentRowsAreDamaged() throws {
        let edits = [
            ("INSERT INTO object VALUES (3, 4096, 0, 8, 1, NULL, 0, 0, NULL, NULL)", "more objects than the info table counts"),
            ("UPDATE object SET targets = '[1,2]' WHERE id = 0", "the references of object 0 do not match their path list"),
            ("UPDATE object SET targets = '[7]' WHERE id = 0", "the references of object 0 do not match their path list"),
            ("UPDATE object SET path_list_id = NULL WHERE id = 1", "object 1 has references but no path list"),
            ("UPDATE path_list SET paths = '[9]' WHERE id = 0", "path list 0 names a path that does not exist"),
        ]
        for (index, (edit, reason)) in edits.enumerated() {
            let path = temporaryPath("inconsistent-\(index).lgsnap")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try HeapSnapshotFile.write(Self.sample, to: path)
            try SQLiteDatabase(path: path, readOnly: false).execute(edit)
            let error = #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: path) }
            #expect(error?.code == .damaged, "\(edit)")
            #expect(error?.message.contains(reason) == true, "\(edit): \(error?.message ?? "")")
        }
    }

    @Test func otherFilesAreNoSnapshots() throws {
        let path = temporaryPath("other.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: path) }
        let missing = #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.read(from: temporaryPath("missing")) }
        #expect(missing?.code == .unreadable)
    }

    @Test func aFailedWriteLeavesTheOldFile() throws {
        let directory = temporaryPath("readonly")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: SnapshotFileError.self) {
            try HeapSnapshotFile.write(Self.sample, to: directory + "/missing/dir/app.lgsnap")
        }
        #expect(error?.code == .cannotWrite)
        // An existing snapshot stays as it was when the new one cannot be written (here its partial
        // file's name is taken by a folder).
        let path = directory + "/app.lgsnap"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.createDirectory(atPath: path + ".partial/inside", withIntermediateDirectories: true)
        #expect(throws: SnapshotFileError.self) { try HeapSnapshotFile.write(Self.sample, to: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
    }

    @Test func aLeakReportOpensAsASnapshotOfItsLeaks() throws {
        let report = LeakReport(
            program: LeakReport.Program(path: "/tmp/ring", arguments: ["3"], exitStatus: 0),
            summary: LeakReport.Summary(trackedObjects: 10, liveObjects: 8, leakedObjects: 2, leakedBytes: 64, rootCycles: 1),
            leaks: [
                LeakReport.Leak(
                    id: 0, address: "0x2000", type: "Ring.Node", kind: "class", size: 32, retainCount: 1, cycle: 0,
                    backtrace: [LeakReport.Frame(function: "Ring.make()", file: "/src/main.swift", line: 4)]),
                LeakReport.Leak(
                    id: 1, address: "0x1000", type: "Ring.Node", kind: "class", size: 32, retainCount: 1, cycle: 0,
                    backtrace: [LeakReport.Frame(function: "Ring.make()", file: "/src/main.swift", line: 4)]),
            ],
            references: [
                LeakReport.LeakReference(from: 0, to: 1, path: .property("next"), ownership: .strong),
                LeakReport.LeakReference(from: 1, to: 0, path: .property("next"), ownership: .strong),
            ],
            cycles: [LeakReport.Cycle(id: 0, members: [0, 1], holds: [])])
        let path = temporaryPath("report.json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try report.jsonData().write(to: URL(fileURLWithPath: path))
        let snapshot = try HeapSnapshotFile.read(from: path)
        #expect(snapshot.info.origin == .leakReport)
        #expect(snapshot.objects.address == [0x1000, 0x2000])
        #expect(snapshot.leakedObjects == [0, 1])
        #expect(snapshot.references(from: 0).map(\.to) == [1])
        #expect(snapshot.frames.first?.category == .program)
        #expect(snapshot.creationSite(ofStack: 0)?.text == "main.swift:4 in Ring.make()")
    }
}
