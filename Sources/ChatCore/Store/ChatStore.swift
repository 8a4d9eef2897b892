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
    /// "Sent" marks of sent items not written yet (item id -> status JSON): each rides in the
    /// next write transaction (the delivery receipt's, usually), so a sent message costs two
    /// writes, not three (issue 14). Reads see them through `deferredSentStatuses`.
    private let deferredSent = NIOLockedValueBox<[Int64: DeferredStatus]>([:])

    struct DeferredStatus: Sendable {
        let statusJSON: String
        let at: Double
    }

    /// WAL checkpoints on a queue of their own, not inside the controller's commits; its WAL hook
    /// also counts the pages commits write (chat-bench reports them per message).
    private let checkpoints: BackgroundCheckpoint
    var pagesWritten: Int { checkpoints.framesWritten }

    private init(path: String, dbQueue: DatabaseQueue, checkpoints: BackgroundCheckpoint) {
        self.path = path
        self.dbQueue = dbQueue
        self.checkpoints = checkpoints
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
        let checkpoints = BackgroundCheckpoint()
        config.prepareDatabase { db in
            // One process uses the file at a time (simplex-chat: one chat per database), so its lock
            // is taken once and held: no file-lock system calls per transaction and no shared-memory
            // WAL index. `/db test key` compares keys while the store holds it (ChatController+Database).
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            checkpoints.install(on: db)
        }
        let existed = FileManager.default.fileExists(atPath: path)
        // A sealed file opened without a key is not a database, whatever SQLite would say: told
        // from its first bytes, since a running chat holds the file's lock (exclusive locking).
        if key.isEmpty && DatabaseEncryption.fileState(path: path) == .notPlaintext { return .failure(.errorNotADatabase(dbFile: path)) }
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
        return .success(ChatStore(path: path, dbQueue: queue, checkpoints: checkpoints))
    }

    func read<T>(_ body: (Database) throws -> T) throws(ChatError) -> T {
        do { return try dbQueue.inDatabase(body) } catch { throw ChatStore.wrap(error) }
    }

    /// One write transaction: the deferred "sent" marks first (so a later status in `body`
    /// wins), then `body`. If it fails the marks stay deferred for the next one.
    func write<T>(_ body: (Database) throws -> T) throws(ChatError) -> T {
        defer { checkpointIfDue() }
        writes.withLockedValue { $0 += 1 }
        let marks = deferredSent.withLockedValue { d in defer { d = [:] }; return d }
        do {
            return try dbQueue.immediateTransaction { db in
                for (itemId, m) in marks.sorted(by: { $0.key < $1.key }) {
                    _ = try db.setSentItemStatus(itemId, m.statusJSON, keepDelivered: true, at: m.at)
                }
                return try body(db)
            }
        } catch {
            deferredSent.withLockedValue { d in d.merge(marks) { newer, _ in newer } }
            throw ChatStore.wrap(error)
        }
    }

    /// Schedules the WAL checkpoint a commit found due. It waits for the database like any
    /// access; the controller meanwhile does its work that needs none (and none of the fsyncs).
    /// A store closed meanwhile makes it fail without effect (SQLite checkpointed on close).
    private func checkpointIfDue() {
        checkpoints.scheduleIfDue { [dbQueue] checkpoint in try? dbQueue.inDatabase(checkpoint) }
    }

    /// Records a "sent" mark to be written with the next write transaction.
    func deferSentStatus(_ itemIds: [Int64], statusJSON: String, at now: Double) {
        deferredSent.withLockedValue { d in
            for id in itemIds { d[id] = DeferredStatus(statusJSON: statusJSON, at: now) }
        }
    }

    /// Deferred marks, for reads to show items as they will be stored.
    var deferredSentStatuses: [Int64: String] { deferredSent.withLockedValue { $0.mapValues(\.statusJSON) } }

    /// Whether any mark waits for a write.
    var hasDeferredWrites: Bool { deferredSent.withLockedValue { !$0.isEmpty } }

    /// Writes the deferred marks now (one transaction), if there are any.
    func flushDeferred() throws(ChatError) {
        guard hasDeferredWrites else { return }
        try write { _ in }
    }

    /// Writes what is deferred, then closes.
    func close() {
        try? flushDeferred()
        try? dbQueue.close()
    }

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
