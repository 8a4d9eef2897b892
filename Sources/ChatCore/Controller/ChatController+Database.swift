import Foundation
import SimplexStore

/// Encryption of the two databases (`/_db encryption`, `/db test key`) and the close/reopen
/// pair the C ABI exposes for hosts that must release their files (`chat_close_store`).
extension ChatController {
    /// Re-encrypts the chat and agent databases from `currentKey` to `newKey` (either may be
    /// empty). Needs the chat stopped, as in simplex-chat; both files always end under one key.
    func changeDatabaseKey(_ cfg: DBEncryptionConfig) throws(ChatError) -> ChatResponse {
        guard agent == nil else { throw .error(errorType: .chatNotStopped) }
        let chatPath = Self.chatDatabasePath(dbPrefix), agentPath = Self.agentDatabasePath(dbPrefix)
        let encrypted = DatabaseEncryption.fileState(path: chatPath) == .notPlaintext
        if encrypted && cfg.currentKey.isEmpty { throw .errorDatabase(databaseError: .errorEncrypted) }
        if !encrypted && !cfg.currentKey.isEmpty { throw .errorDatabase(databaseError: .errorPlaintext) }
        guard cfg.currentKey != cfg.newKey else { return .cmdOk(user_: nil) }
        store.close()
        do {
            try DatabaseEncryption.export(path: chatPath, currentKey: cfg.currentKey, newKey: cfg.newKey)
        } catch {
            try reopen(key: dbKey)
            throw Self.exportError(error, path: chatPath)
        }
        if DatabaseEncryption.fileState(path: agentPath) != .missing {
            do {
                try DatabaseEncryption.export(path: agentPath, currentKey: cfg.currentKey, newKey: cfg.newKey)
            } catch {
                // Put the chat file back under the old key: a key per file would lock one out.
                try? DatabaseEncryption.export(path: chatPath, currentKey: cfg.newKey, newKey: dbKey)
                try reopen(key: dbKey)
                throw Self.exportError(error, path: agentPath)
            }
        }
        try reopen(key: cfg.newKey)
        return .cmdOk(user_: nil)
    }

    /// Whether `key` opens the chat database (`/db test key`).
    func testDatabaseKey(_ key: String) throws(ChatError) -> ChatResponse {
        // The open store holds the file's lock, so no second connection can read it: the key opens
        // the file exactly when it is the key the store was opened with (a wrong key fails as
        // opening with it does, "not a database").
        if !storeClosed {
            guard key == dbKey else { throw .errorDatabase(databaseError: .errorOpen(sqliteError: .errorNotADatabase)) }
            return .cmdOk(user_: nil)
        }
        let path = Self.chatDatabasePath(dbPrefix)
        do {
            try DatabaseEncryption.check(path: path, key: key)
        } catch {
            throw .errorDatabase(databaseError: .errorOpen(sqliteError: Self.sqliteError(error)))
        }
        return .cmdOk(user_: nil)
    }

    /// Releases both database files; commands fail until `reopenStore()`.
    public func closeStore() async {
        guard !storeClosed, !closed else { return }
        runningBeforeClose = agent != nil
        await stopAgent()
        store.close()
        storeClosed = true
    }

    /// Opens the databases again after `closeStore()`, resuming the agent if it was running.
    /// Answers nil, or the DBMigrationResult that stopped it.
    public func reopenStore() async -> DBMigrationResult? {
        guard storeClosed, !closed else { return nil }
        switch ChatStore.open(path: Self.chatDatabasePath(dbPrefix), key: dbKey, confirm: .yesUp) {
        case .failure(let r):
            return r
        case .success(let s):
            store = s
            storeClosed = false
            if runningBeforeClose { _ = try? await startAgent() }
            return nil
        }
    }

    private func reopen(key: String) throws(ChatError) {
        switch ChatStore.open(path: Self.chatDatabasePath(dbPrefix), key: key, confirm: .yesUp) {
        case .success(let s):
            store = s
            dbKey = key
        case .failure(let r):
            storeClosed = true
            throw .errorDatabase(databaseError: .errorOpen(sqliteError: .error(dbError: r.jsonString())))
        }
    }

    private static func exportError(_ e: DatabaseEncryption.ExportError, path: String) -> ChatError {
        .errorDatabase(databaseError: .errorExport(sqliteError: sqliteError(e)))
    }

    private static func sqliteError(_ e: DatabaseEncryption.ExportError) -> SQLiteError {
        switch e {
        case .openFailed(let m) where m.contains("SQLITE_NOTADB") || m.contains("not a database"): return .errorNotADatabase
        case .openFailed(let m), .exportFailed(let m): return .error(dbError: m)
        }
    }
}
