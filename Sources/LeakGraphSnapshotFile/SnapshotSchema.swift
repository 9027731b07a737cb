/// The SQLite layout of a heap snapshot file, format 2 (docs/snapshots.md documents every table and
/// gives example queries). The file is an ordinary SQLite 3 database: `sqlite3 app.lgsnap` opens it.
///
/// The database's `application_id` marks it as LeakGraph's and its `user_version` is the format
/// version; a reader refuses any other. Objects are numbered in address order from 0; every other
/// table names them by that `id`.
///
/// An object's references are stored in its own row, to keep SQLite's cost per row (about 10 bytes)
/// off every reference: `targets` is the JSON array of the target objects' ids in the walk's order,
/// `path_list_id` the list of their paths (and array elements), which objects of one type share. The
/// view `reference` turns them back into one row per reference (with SQLite's built-in `json_each`).
enum SnapshotSchema {
    /// `PRAGMA application_id` of a snapshot: `LGSN` in ASCII.
    static let applicationID: Int64 = 0x4C47_534E

    /// The tables and views, created in one transaction before the rows are inserted.
    static let create = """
        CREATE TABLE info(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
        CREATE TABLE type(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, module TEXT,
            superclasses TEXT NOT NULL, is_program INTEGER NOT NULL);
        CREATE TABLE frame(
            id INTEGER PRIMARY KEY, function TEXT NOT NULL, file TEXT, line INTEGER, module TEXT,
            category TEXT NOT NULL);
        CREATE TABLE stack_frame(
            stack_id INTEGER NOT NULL, depth INTEGER NOT NULL, frame_id INTEGER NOT NULL,
            PRIMARY KEY (stack_id, depth)) WITHOUT ROWID;
        CREATE TABLE path(id INTEGER PRIMARY KEY, text TEXT NOT NULL, ownership TEXT NOT NULL, steps TEXT NOT NULL);
        CREATE TABLE path_list(id INTEGER PRIMARY KEY, paths TEXT NOT NULL, elements TEXT);
        CREATE TABLE object(
            id INTEGER PRIMARY KEY, address INTEGER NOT NULL, type_id INTEGER NOT NULL, size INTEGER NOT NULL,
            retain_count INTEGER NOT NULL, stack_id INTEGER, leaked INTEGER NOT NULL, orphan INTEGER NOT NULL,
            path_list_id INTEGER, targets TEXT);
        CREATE TABLE root(
            object_id INTEGER PRIMARY KEY, unexplained_retains INTEGER NOT NULL, holder_kind TEXT NOT NULL,
            holder_name TEXT, holder_location TEXT, holder_address TEXT);
        CREATE TABLE diagnostic(
            id INTEGER PRIMARY KEY, type TEXT NOT NULL, reason TEXT NOT NULL, object_count INTEGER NOT NULL, site TEXT);
        CREATE VIEW reference AS
            SELECT o.id AS from_id, t.key AS position, t.value AS to_id, l.paths ->> t.key AS path_id,
                l.elements ->> t.key AS element
            FROM object o, json_each(o.targets) t JOIN path_list l ON l.id = o.path_list_id;
        CREATE VIEW reference_path AS
            SELECT r.from_id, r.position, r.to_id, p.ownership,
                CASE WHEN r.element IS NULL THEN p.text
                    ELSE '[' || r.element || ']' || CASE
                        WHEN p.text = '' OR substr(p.text, 1, 1) IN ('[', ' ') THEN p.text ELSE '.' || p.text END
                END AS path
            FROM reference r JOIN path p ON p.id = r.path_id;
        CREATE VIEW object_type AS
            SELECT o.id, printf('0x%x', o.address) AS address, t.name AS type, t.kind, o.size, o.retain_count,
                o.leaked, o.orphan, o.stack_id
            FROM object o JOIN type t ON t.id = o.type_id;
        """
}
