import GRDB

/// The controller's SQL goes through SQLite's prepared-statement cache: compiling a statement
/// each time cost more than running it (measured on the agent's hot paths).
extension Database {
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// The first row of a cached query, decoded while it is the statement's current row: there
    /// GRDB finds a column by name in a dictionary, while a fetched (copied) `Row` lowercases
    /// every column name on each lookup (4 % of chat-bench's CPU). `decode` must not run the
    /// same query again, nor keep the row.
    func decodeFirst<T>(_ sql: String, _ arguments: StatementArguments, _ decode: (Row) throws -> T) throws -> T? {
        let rows = try Row.fetchCursor(cachedStatement(sql: sql), arguments: arguments)
        guard let row = try rows.next() else { return nil }
        return try decode(row)
    }
}
