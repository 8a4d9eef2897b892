import Foundation
import GRDB
import SimplexStore

/// The agent's own SQLite file (seed 002 §4: the agent database beside the chat database).
/// One serialized connection in WAL mode; every state change of the protocol is one transaction.
final class AgentStore: Sendable {
    let dbQueue: DatabaseQueue
    let path: String

    /// Opens (creating if needed) and migrates the database at `path`, sealed with `key` when it
    /// is not empty (the chat database's passphrase: SimpleX keys both files alike).
    init(path: String, key: String = "") throws(AgentError) {
        self.path = path
        var config = Configuration()
        DatabaseEncryption.configure(&config, key: key)
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            // WAL with NORMAL sync survives a killed process (not a power cut), which is the
            // guarantee the agent gives; the relay keeps messages until we ACK them anyway.
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            dbQueue = try DatabaseQueue(path: path, configuration: config)
            try AgentMigrations.migrator.migrate(dbQueue)
        } catch {
            throw .store("cannot open agent database \(path): \(error)")
        }
    }

    /// Migrations applied to this file, in order.
    func appliedMigrations() throws(AgentError) -> [String] {
        try read { db in try AgentMigrations.migrator.appliedMigrations(db) }
    }

    /// Reads without GRDB's read-only guard: toggling `PRAGMA query_only` expires every prepared
    /// statement, so the statement cache would be recompiled on each read (60% of the agent's
    /// CPU when measured).
    func read<T>(_ body: (Database) throws -> T) throws(AgentError) -> T {
        do { return try dbQueue.inDatabase(body) } catch { throw AgentError.wrapStore(error) }
    }

    /// One IMMEDIATE transaction, as GRDB's `write`, but BEGIN and COMMIT come from the statement
    /// cache: GRDB compiles both (with its authorizer) on every transaction, 2-3% of agent-bench's
    /// CPU when profiled. Any error rolls the transaction back.
    /// `committed` runs after the COMMIT, before the database is released (RatchetStates).
    func write<T>(_ body: (Database) throws -> T, committed: () -> Void = {}) throws(AgentError) -> T {
        do {
            return try dbQueue.immediateTransaction(body, committed: committed)
        } catch {
            throw AgentError.wrapStore(error)
        }
    }

    func close() {
        try? dbQueue.close()
    }
}
