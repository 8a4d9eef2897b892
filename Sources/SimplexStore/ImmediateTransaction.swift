import GRDB

extension DatabaseQueue {
    /// One write transaction (BEGIN IMMEDIATE ... COMMIT) whose BEGIN and COMMIT come from the
    /// statement cache: GRDB's `write` compiles both again for every transaction, which showed on
    /// the per-message paths of the agent and chat stores. Rolled back when `body` throws.
    /// `committed` runs after the COMMIT while the database is still held, so what it publishes
    /// (a cache of committed state) is in place before any other access can read the file.
    public func immediateTransaction<T>(_ body: (Database) throws -> T, committed: () -> Void = {}) throws -> T {
        try writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                let result = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                committed()
                return result
            } catch {
                // SQLite may have rolled back already (SQLITE_FULL, IOERR, BUSY, NOMEM).
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                throw error
            }
        }
    }
}
