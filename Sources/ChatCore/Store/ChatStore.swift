import Foundation
import GRDB
import NIOConcurrencyHelpers
import SimplexStore

/// The chat database: its own SQLite file (`<prefix>_chat.db`) beside the agent's, migrated on
/// open according to the caller's confirmation mode.
final class ChatStore: Sendable {
    let dbQueue: DatabaseQueue
    let path: String
    /// Write transactions so far (chat-bench reports them per message).
    private let writes = NIOLockedValueBox(0)
    var writeCount: Int { writes.withLockedValue { $0 } }

    private init(path: String, dbQueue: DatabaseQueue) {
        self.path = path
        self.dbQueue = dbQueue
    }

    /// Opens and migrates `path`. A file that is not SQLite (or is encrypted with another key)
    /// is `errorNotADatabase`; pending upgrades of an existing file need `confirm` to allow them.
    static func open(path: String, key: String, confirm: MigrationConfirmation) -> Result<ChatStore, DBMigrationResult> {
        var config = Configuration()
        // Sealed pages when `key` is not empty (docs/protocol-notes.md, "Database encryption");
        // a wrong key surfaces below as SQLITE_NOTADB, before anything is written.
        DatabaseEncryption.configure(&config, key: key)
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let existed = FileManager.default.fileExists(atPath: path)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            // Reading the schema is what reveals a file that is not a database.
            _ = try queue.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        } catch let e as GRDB.DatabaseError where e.resultCode == .SQLITE_NOTADB {
            return .failure(.errorNotADatabase(dbFile: path))
        } catch {
            return .failure(.errorSQL(dbFile: path, migrationSQLError: "\(error)"))
        }
        let migrator = ChatMigrations.migrator
        do {
            let applied = try queue.inDatabase { db in try migrator.appliedIdentifiers(db) }
            let unknown = applied.subtracting(ChatMigrations.known)
            if !unknown.isEmpty {
                // A newer build wrote this file; we have no down migrations to go back.
                return .failure(.errorMigration(dbFile: path, migrationError: .downgrade(downMigrations: unknown.sorted())))
            }
            let pending = ChatMigrations.known.filter { !applied.contains($0) }
            if !pending.isEmpty && existed && !applied.isEmpty && confirm == .error {
                let ups = pending.map { UpMigration(upName: $0, withDown: false) }
                return .failure(.errorMigration(dbFile: path, migrationError: .upgrade(upMigrations: ups)))
            }
            try migrator.migrate(queue)
        } catch let e as GRDB.DatabaseError where e.resultCode == .SQLITE_NOTADB {
            return .failure(.errorNotADatabase(dbFile: path))
        } catch {
            return .failure(.errorSQL(dbFile: path, migrationSQLError: "\(error)"))
        }
        return .success(ChatStore(path: path, dbQueue: queue))
    }

    func read<T>(_ body: (Database) throws -> T) throws(ChatError) -> T {
        do { return try dbQueue.inDatabase(body) } catch { throw ChatStore.wrap(error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(ChatError) -> T {
        writes.withLockedValue { $0 += 1 }
        do { return try dbQueue.write(body) } catch { throw ChatStore.wrap(error) }
    }

    func close() { try? dbQueue.close() }

    /// SQLite failures become the store errors simplex-chat reports for them (SEDBBusyError,
    /// SEDBException); the receive path retries on these instead of dropping the message.
    static func wrap(_ error: any Error) -> ChatError {
        if let e = error as? ChatError { return e }
        if let e = error as? GRDB.DatabaseError {
            if e.resultCode == .SQLITE_BUSY || e.resultCode == .SQLITE_LOCKED {
                return .errorStore(storeError: .dBBusyError(message: "\(e)"))
            }
            return .errorStore(storeError: .dBException(message: "\(e)"))
        }
        return .error(errorType: .internalError(message: "database: \(error)"))
    }
}

extension ChatError {
    /// A failure of our own database (not of the input): worth retrying, never a reason to drop.
    var isDatabaseError: Bool {
        if case .errorStore(.dBException) = self { return true }
        if case .errorStore(.dBBusyError) = self { return true }
        return false
    }
}

/// A failed open carries its DBMigrationResult as the error.
extension DBMigrationResult: Error {}
