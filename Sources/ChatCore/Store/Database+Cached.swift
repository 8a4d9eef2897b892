import GRDB
import SimplexStore

/// The controller's SQL goes through SQLite's prepared-statement cache: compiling a statement
/// each time cost more than running it (measured on the agent's hot paths).
extension Database {
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// The first row of a cached query, decoded while it is the statement's current one, without
    /// a GRDB `Row`: a copied `Row` lowercases every column name on each lookup (4 % of
    /// chat-bench's CPU), and even a cursor's `Row` builds a dictionary of them per query (3.6 %);
    /// `StatementColumns` finds names in the statement's own index. `decode` must not run the
    /// same query again, nor keep the columns.
    func decodeFirst<T>(_ sql: String, _ arguments: StatementArguments, _ decode: (StatementColumns) throws -> T) throws -> T? {
        try firstRow(sql, arguments, decode)
    }
}
