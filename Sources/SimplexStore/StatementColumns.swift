import GRDB

/// Reading a row's columns by name or index, the same way from a GRDB `Row` and from a statement's
/// current row (`StatementColumns`), so one decoder serves both.
public protocol ColumnReading {
    subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value { get }
    subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value { get }
}

extension Row: ColumnReading {}

/// The current row of a statement being stepped, read straight from SQLite. A GRDB `Row` made for
/// each query lowercases every column name into a dictionary first (3.6 % of chat-bench's CPU);
/// here a name is found in the statement's own index, built once per cached statement.
/// Valid only while the statement stays on that row (inside `Database.firstRow`'s closure).
/// As with `Row`, a NULL or a missing column read as a non-optional value is a programming error.
/// The subscripts are inlinable: callers in other modules then read a column of a known type
/// directly, where the generic entry looked up type metadata on every read (1% of chat-bench).
public struct StatementColumns: ColumnReading {
    @usableFromInline let statement: Statement

    @inlinable
    public subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        self[index(columnName)]
    }

    @inlinable
    public subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        guard index >= 0 else { return Self.missing() }
        let value = DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(index))
        guard let v = Value.fromDatabaseValue(value) else { fatalError("could not read \(value) as \(Value.self) from column \(index) of \(statement.sql)") }
        return v
    }

    /// The whole current row as a GRDB `Row` that outlives the statement's step (for a caller
    /// that reads many of its columns later), without running the query again.
    public func copiedRow() -> Row {
        var values: [String: (any DatabaseValueConvertible)?] = [:]
        for (i, name) in statement.columnNames.enumerated() {
            values[name] = DatabaseValue(sqliteStatement: statement.sqliteStatement, index: CInt(i))
        }
        return Row(values)
    }

    /// -1 for a column the statement does not have (nil for an optional, as `Row` reads it).
    /// The name as spelled in the query first: GRDB's own lookup lowercases it on every call
    /// (1.5 % of chat-bench), while comparing short ASCII names is a step each. Its
    /// case-insensitive lookup is kept for other spellings.
    @usableFromInline
    func index(_ name: String) -> Int {
        if let i = statement.columnNames.firstIndex(of: name) { return i }
        return statement.index(ofColumn: name) ?? -1
    }

    @usableFromInline
    static func missing<Value: DatabaseValueConvertible>() -> Value {
        guard let v = Value.fromMissingColumn() else { fatalError("missing column read as \(Value.self)") }
        return v
    }
}

extension Database {
    /// The first row of `statement` with `arguments`, decoded while it is the statement's current
    /// row, without a GRDB `Row` (see `StatementColumns`). `decode` must not run this statement
    /// again, nor keep the columns.
    public func firstRow<T>(_ statement: Statement, _ arguments: StatementArguments, _ decode: (StatementColumns) throws -> T) throws -> T? {
        // Any cursor binds the arguments, steps and resets the statement when it goes; this one
        // only copies column 0.
        let cursor = try DatabaseValue.fetchCursor(statement, arguments: arguments)
        return try withExtendedLifetime(cursor) {
            guard try cursor.next() != nil else { return nil }
            return try decode(StatementColumns(statement: statement))
        }
    }

    /// `firstRow` of a cached statement.
    public func firstRow<T>(_ sql: String, _ arguments: StatementArguments, _ decode: (StatementColumns) throws -> T) throws -> T? {
        try firstRow(cachedStatement(sql: sql), arguments, decode)
    }

    /// Every row of `statement` with `arguments`, each decoded while it is the current row.
    public func allRows<T>(_ statement: Statement, _ arguments: StatementArguments, _ decode: (StatementColumns) throws -> T) throws -> [T] {
        let cursor = try DatabaseValue.fetchCursor(statement, arguments: arguments)
        return try withExtendedLifetime(cursor) {
            var out: [T] = []
            while try cursor.next() != nil { out.append(try decode(StatementColumns(statement: statement))) }
            return out
        }
    }
}
