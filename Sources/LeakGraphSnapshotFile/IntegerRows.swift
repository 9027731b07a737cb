/// Inserts rows of integers (and `NULL`s) many at a time: one prepared statement with
/// ``rowsPerStatement`` rows of parameters, which SQLite runs several times faster per row than one
/// statement per row (measured: 0.9 s instead of 2.0 s of CPU for a million objects and two million
/// references).
final class IntegerRows {
    /// The value bound as `NULL`.
    static let null = Int64.min
    /// Rows per statement (a statement takes at most 32,766 parameters).
    let rowsPerStatement: Int
    private let database: SQLiteDatabase
    private let table: String
    private let columns: Int
    private let full: SQLiteStatement
    private var values: [Int64]
    private var pending = 0

    /// Prepares inserts into `table` of rows of `columns` integers.
    init(_ database: SQLiteDatabase, table: String, columns: Int, rowsPerStatement: Int = 64) throws(SQLiteError) {
        self.database = database
        self.table = table
        self.columns = columns
        self.rowsPerStatement = rowsPerStatement
        self.full = try database.prepare(Self.sql(table: table, columns: columns, rows: rowsPerStatement))
        self.values = [Int64](repeating: 0, count: columns * rowsPerStatement)
    }

    private static func sql(table: String, columns: Int, rows: Int) -> String {
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        return "INSERT INTO \(table) VALUES " + Array(repeating: row, count: rows).joined(separator: ",")
    }

    /// Adds one row; its values are `values[0 ..< columns]` set by `fill` (``null`` for `NULL`).
    @inline(__always)
    func add(_ fill: (inout ArraySlice<Int64>) -> Void) throws(SQLiteError) {
        let start = pending * columns
        fill(&values[start..<start + columns])
        pending += 1
        if pending == rowsPerStatement {
            try flush(full, rows: pending)
        }
    }

    /// Inserts the rows still pending.
    func finish() throws(SQLiteError) {
        guard pending > 0 else { return }
        let statement = try database.prepare(Self.sql(table: table, columns: columns, rows: pending))
        try flush(statement, rows: pending)
    }

    private func flush(_ statement: SQLiteStatement, rows: Int) throws(SQLiteError) {
        for index in 0..<rows * columns {
            let value = values[index]
            if value == Self.null {
                statement.bindNull(Int32(index + 1))
            } else {
                statement.bind(Int32(index + 1), value)
            }
        }
        try statement.run()
        pending = 0
    }
}
