import CSQLiteCrypt
import Foundation
import GRDB

/// Encryption at rest for the chat and agent databases (issue 4 §5): a passphrase turns on the
/// page-sealing VFS of `CSQLiteCrypt` for one connection. An empty passphrase is a plain file.
public enum DatabaseEncryption {
    /// Adds the key step to `config`; it must run before anything reads the file, so call this
    /// before adding other `prepareDatabase` steps. A wrong key fails the open with SQLITE_NOTADB.
    public static func configure(_ config: inout Configuration, key: String) {
        _ = sqlcrypt_install()
        guard !key.isEmpty else { return }
        config.prepareDatabase { db in
            let bytes = Array(key.utf8)
            let rc = bytes.withUnsafeBytes { raw in
                sqlcrypt_set_key(db.sqliteConnection, nil, raw.baseAddress, Int32(raw.count))
            }
            switch rc {
            case SQLITE_OK: break
            case SQLITE_NOTADB: throw GRDB.DatabaseError(resultCode: .SQLITE_NOTADB, message: "file is not a database")
            default: throw GRDB.DatabaseError(resultCode: ResultCode(rawValue: rc), message: "cannot set the database key")
            }
            // Temporary tables and statement journals stay in memory, never in a file.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
    }

    /// What the first bytes of a file say: plain SQLite, something else (our sealed format or
    /// not a database), or no file at all.
    public enum FileState: Sendable, Equatable { case missing, plaintext, notPlaintext }

    public static func fileState(path: String) -> FileState {
        guard let h = FileHandle(forReadingAtPath: path) else { return .missing }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 16)) ?? Data()
        if head.isEmpty { return .missing }
        return head == Data("SQLite format 3\0".utf8) ? .plaintext : .notPlaintext
    }

    public enum ExportError: Error, Sendable, Equatable {
        /// The current key does not open the file.
        case openFailed(String)
        /// Copying into the re-keyed file failed; the original is untouched.
        case exportFailed(String)
    }

    /// Opens `path` with `key` and reads its schema, then closes it; `openFailed` when the key
    /// (or the absence of one) does not fit the file.
    public static func check(path: String, key: String) throws(ExportError) {
        guard fileState(path: path) != .missing else { throw .openFailed("no database file at \(path)") }
        var config = Configuration()
        configure(&config, key: key)
        do {
            let q = try DatabaseQueue(path: path, configuration: config)
            _ = try q.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            try q.close()
        } catch {
            throw .openFailed("\(error)")
        }
    }

    /// Re-encrypts the closed database at `path` from `currentKey` to `newKey` (either may be
    /// empty: encrypt, decrypt, or change the key). The copy is checked before it replaces the
    /// original with a rename, so a failure at any step leaves the original file as it was.
    public static func export(path: String, currentKey: String, newKey: String) throws(ExportError) {
        let tmp = path + ".export"
        removeDatabaseFiles(tmp)
        var srcConfig = Configuration()
        configure(&srcConfig, key: currentKey)
        let src: DatabaseQueue
        do {
            src = try DatabaseQueue(path: path, configuration: srcConfig)
            _ = try src.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        } catch {
            throw .openFailed("\(error)")
        }
        do {
            if !newKey.isEmpty {
                // Sealed pages need their 32 reserved bytes and the fixed page size: a plain
                // file is rebuilt in place first (still plain, same content).
                try src.inDatabase { db in
                    let reserve = Int(sqlcrypt_reserve_bytes()), size = Int(sqlcrypt_page_size())
                    let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                    var current: Int32 = -1
                    sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_RESERVE_BYTES, &current)
                    if Int(current) != reserve || pageSize != size {
                        // page_size first: the pragma resets the wanted reserve to 0.
                        try db.execute(sql: "PRAGMA page_size = \(size)")
                        var r = Int32(reserve)
                        sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_RESERVE_BYTES, &r)
                        try db.execute(sql: "PRAGMA journal_mode = DELETE")
                        try db.execute(sql: "VACUUM")
                        try db.execute(sql: "PRAGMA journal_mode = WAL")
                    }
                }
            }
            var dstConfig = Configuration()
            configure(&dstConfig, key: newKey)
            dstConfig.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            let dst = try DatabaseQueue(path: tmp, configuration: dstConfig)
            try src.backup(to: dst)
            let check = try dst.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA quick_check") }
            guard check == "ok" else { throw ExportError.exportFailed("quick_check: \(check ?? "none")") }
            try dst.close()
            try src.close()
        } catch {
            try? src.close()
            removeDatabaseFiles(tmp)
            if let e = error as? ExportError { throw e }
            throw .exportFailed("\(error)")
        }
        // Both connections are closed, so neither file has a WAL left that could be replayed
        // over the other; the rename is the commit point.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        if rename(tmp, path) != 0 {
            removeDatabaseFiles(tmp)
            throw .exportFailed("rename: \(String(cString: strerror(errno)))")
        }
        syncDirectory(of: path)
    }

    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func syncDirectory(of path: String) {
        let dir = (path as NSString).deletingLastPathComponent
        let fd = open(dir.isEmpty ? "." : dir, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
    }
}
