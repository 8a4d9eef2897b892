import CSQLiteCrypt
import Foundation
import GRDB
import SimplexStore
import Testing

/// The sealed SQLite format on real files: nothing readable on disk, the right key reads
/// everything back (also after a crash mid-WAL), a wrong key is SQLITE_NOTADB and leaves the
/// file untouched, tampering is an error and never a crash, and export changes keys safely.
@Suite struct DatabaseEncryptionTests {
    let dir: URL

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("dbcrypt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func open(_ path: String, key: String, wal: Bool = true) throws -> DatabaseQueue {
        var c = Configuration()
        DatabaseEncryption.configure(&c, key: key)
        if wal { c.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") } }
        let q = try DatabaseQueue(path: path, configuration: c)
        _ = try q.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        return q
    }

    static let marker = "MARKER-plaintext-must-not-appear"

    func fill(_ q: DatabaseQueue, rows: Int, from: Int = 0) throws {
        try q.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT")
            for i in from..<(from + rows) {
                try db.execute(sql: "INSERT INTO t (id, body) VALUES (?, ?)", arguments: [i, "\(Self.marker) \(i) " + String(repeating: "x", count: 300)])
            }
        }
    }

    func count(_ q: DatabaseQueue) throws -> Int {
        try q.inDatabase { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE body LIKE ?", arguments: ["\(Self.marker)%"]) ?? -1 }
    }

    func bytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

    func isNotADatabase(_ body: () throws -> Void) -> Bool {
        do { try body() } catch let e as DatabaseError { return e.resultCode == .SQLITE_NOTADB } catch { return false }
        return false
    }

    @Test func sealedOnDiskAndReadableWithTheKey() throws {
        let p = path("a.db")
        let q = try open(p, key: "correct horse")
        try fill(q, rows: 500)
        // While open, the WAL holds the recent pages: sealed too.
        #expect(bytes(p + "-wal").count > 4096)
        #expect(bytes(p + "-wal").range(of: Data(Self.marker.utf8)) == nil)
        try q.close()
        let disk = bytes(p)
        #expect(disk.count >= 500 * 300)
        #expect(disk.range(of: Data(Self.marker.utf8)) == nil)
        #expect(disk.range(of: Data("CREATE TABLE".utf8)) == nil)
        #expect(DatabaseEncryption.fileState(path: p) == .notPlaintext)
        let q2 = try open(p, key: "correct horse")
        #expect(try count(q2) == 500)
        let check = try q2.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
        try q2.close()
    }

    @Test func wrongOrMissingKeyIsNotADatabaseAndLeavesTheFile() throws {
        let p = path("b.db")
        let q = try open(p, key: "k1")
        try fill(q, rows: 50)
        try q.close()
        let before = bytes(p)
        #expect(isNotADatabase { _ = try open(p, key: "k2") })
        #expect(isNotADatabase { _ = try open(p, key: "") })
        #expect(bytes(p) == before)
        #expect(!FileManager.default.fileExists(atPath: p + "-wal") || bytes(p + "-wal").isEmpty)
        #expect(try count(open(p, key: "k1")) == 50)
    }

    @Test func plainFileWithAKeyIsNotADatabase() throws {
        let p = path("plain.db")
        let q = try open(p, key: "")
        try fill(q, rows: 10)
        try q.close()
        #expect(DatabaseEncryption.fileState(path: p) == .plaintext)
        let before = bytes(p)
        #expect(isNotADatabase { _ = try open(p, key: "some key") })
        #expect(bytes(p) == before)
        // Not a database at all, shorter than a page: also refused, file kept.
        let junk = path("junk.db")
        try Data("hello, not sqlite".utf8).write(to: URL(fileURLWithPath: junk))
        #expect(isNotADatabase { _ = try open(junk, key: "k") })
        #expect(bytes(junk) == Data("hello, not sqlite".utf8))
    }

    /// A process that dies with committed transactions only in the WAL: copying the files
    /// while the connection is open is what the disk holds after a kill -9.
    @Test func committedWALFramesSurviveACrash() throws {
        let p = path("c.db"), crashed = path("crashed.db")
        let q = try open(p, key: "k")
        try q.inDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        try fill(q, rows: 100)
        try q.inDatabase { db in _ = try db.checkpoint(.truncate) }
        try fill(q, rows: 200, from: 100)
        try fill(q, rows: 1, from: 300)
        #expect(bytes(p + "-wal").count > 0)
        try bytes(p).write(to: URL(fileURLWithPath: crashed))
        try bytes(p + "-wal").write(to: URL(fileURLWithPath: crashed + "-wal"))
        try q.close()
        let r = try open(crashed, key: "k")
        #expect(try count(r) == 301)
        #expect(try r.inDatabase { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    @Test func rollbackJournalModeAndRollback() throws {
        let p = path("e.db")
        let q = try open(p, key: "k", wal: false)
        try fill(q, rows: 100)
        try q.inDatabase { db in
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "DELETE FROM t")
            try db.execute(sql: "UPDATE t SET body = 'gone'")
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try count(q) == 100)
        try q.inDatabase { db in try db.execute(sql: "VACUUM") }
        #expect(try count(q) == 100)
        try q.close()
        #expect(bytes(p).range(of: Data(Self.marker.utf8)) == nil)
        #expect(try count(open(p, key: "k", wal: false)) == 100)
    }

    @Test func tamperedPageIsAnErrorNotACrash() throws {
        let p = path("f.db")
        let q = try open(p, key: "k")
        try fill(q, rows: 200)
        try q.close()
        var disk = bytes(p)
        disk[4096 * 3 + 100] ^= 0x01
        try disk.write(to: URL(fileURLWithPath: p))
        let r = try open(p, key: "k")
        #expect(throws: DatabaseError.self) { _ = try count(r) }
        // The connection stays usable for what is intact.
        #expect(try r.inDatabase { db in try Int.fetchOne(db, sql: "SELECT 1") } == 1)
    }

    @Test func exportEncryptsRekeysAndDecrypts() throws {
        let p = path("g.db")
        let q = try open(p, key: "")
        try fill(q, rows: 300)
        try q.close()
        try DatabaseEncryption.export(path: p, currentKey: "", newKey: "first")
        #expect(DatabaseEncryption.fileState(path: p) == .notPlaintext)
        #expect(bytes(p).range(of: Data(Self.marker.utf8)) == nil)
        #expect(try count(open(p, key: "first")) == 300)
        let sealed = bytes(p)
        #expect(throws: DatabaseEncryption.ExportError.self) {
            try DatabaseEncryption.export(path: p, currentKey: "wrong", newKey: "second")
        }
        #expect(bytes(p) == sealed)
        try DatabaseEncryption.export(path: p, currentKey: "first", newKey: "second")
        #expect(isNotADatabase { _ = try open(p, key: "first") })
        let r = try open(p, key: "second")
        try fill(r, rows: 10, from: 300)
        try r.close()
        try DatabaseEncryption.export(path: p, currentKey: "second", newKey: "")
        #expect(DatabaseEncryption.fileState(path: p) == .plaintext)
        #expect(try count(open(p, key: "")) == 310)
        #expect(!FileManager.default.fileExists(atPath: p + ".export"))
    }

    @Test func unkeyedDatabasesAreUnchanged() throws {
        let p = path("h.db")
        let q = try open(p, key: "")
        try fill(q, rows: 30)
        try q.close()
        #expect(bytes(p).range(of: Data(Self.marker.utf8)) != nil)
        #expect(sqlcrypt_page_size() == 4096)
    }
}
