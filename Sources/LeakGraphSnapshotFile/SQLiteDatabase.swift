import CSQLite

/// A SQLite error: the library's message and result code.
struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, …).
    var code: Int32
    /// SQLite's message.
    var message: String

    var description: String { message }

    /// Whether the file is damaged or not a database (truncated, overwritten, not SQLite).
    var isCorruption: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB || code == SQLITE_FORMAT }
}

/// One connection to a SQLite database file: the little of SQLite's C API the snapshot file needs.
final class SQLiteDatabase {
    private let handle: OpaquePointer

    /// Opens `path` read-only, or read-write and created when missing.
    init(path: String, readOnly: Bool) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let status = sqlite3_open_v2(path, &handle, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw SQLiteError(code: status & 0xff, message: message)
        }
        self.handle = handle
    }

    deinit {
        sqlite3_close(handle)
    }

    /// The error of the last call on this connection.
    func lastError(_ status: Int32) -> SQLiteError {
        SQLiteError(code: status & 0xff, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs `sql` (one or more statements without results).
    func execute(_ sql: String) throws(SQLiteError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw lastError(status) }
    }

    /// A prepared statement of `sql`.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw lastError(status) }
        return SQLiteStatement(statement, database: self)
    }

    /// The integer the one-row query `sql` answers (a `PRAGMA`).
    func integer(_ sql: String) throws(SQLiteError) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { throw SQLiteError(code: SQLITE_CORRUPT, message: "no answer to \(sql)") }
        return statement.int64(0)
    }
}

/// A prepared statement: bind, step, read columns, reset.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Binds an integer to parameter `index` (from 1).
    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds text, or `NULL` for `nil`, to parameter `index`.
    func bind(_ index: Int32, _ value: String?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        sqlite3_bind_text(handle, index, value, -1, csqlite_transient())
    }

    /// Binds UTF-8 text, `bytes`, to parameter `index` (SQLite copies it).
    func bind(_ index: Int32, utf8 bytes: UnsafeBufferPointer<UInt8>) {
        sqlite3_bind_text(
            handle, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
            Int32(bytes.count), csqlite_transient())
    }

    /// Binds a floating-point number to parameter `index`.
    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds `NULL` to parameter `index`.
    func bindNull(_ index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    /// Runs the statement one step: `true` when it produced a row, `false` when done.
    @discardableResult
    func step() throws(SQLiteError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.lastError(status)
        }
    }

    /// Runs an insert or update to its end, then resets it for the next bindings.
    func run() throws(SQLiteError) {
        let status = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard status == SQLITE_DONE else { throw database.lastError(status) }
    }

    /// Column `index` (from 0) as an integer.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an integer, `nil` when `NULL`.
    func optionalInt64(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a floating-point number.
    func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` as UTF-8 bytes, valid until the next step; `nil` when `NULL`.
    func utf8(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL, let text = sqlite3_column_text(handle, index) else {
            return nil
        }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Column `index` as text, `nil` when `NULL`.
    func text(_ index: Int32) -> String? {
        guard sqlite3_column_type(handle, index) != SQLITE_NULL, let text = sqlite3_column_text(handle, index) else {
            return nil
        }
        return String(cString: text)
    }
}
