import GRDB

/// The controller's SQL goes through SQLite's prepared-statement cache: compiling a statement
/// each time cost more than running it (measured on the agent's hot paths).
extension Database {
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
