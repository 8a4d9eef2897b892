import Foundation
import GRDB
import SimplexStore
import Testing

/// `BackgroundCheckpoint` replaces SQLite's automatic checkpoint: commits only flag it due, the
/// store runs it when it chooses, and nothing written is lost.
@Suite struct BackgroundCheckpointTests {
    @Test func commitsFlagTheCheckpointInsteadOfRunningIt() throws {
        let dir = NSTemporaryDirectory() + "checkpoint-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/test.db"
        let checkpoints = BackgroundCheckpoint(threshold: 100)
        var config = Configuration()
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            checkpoints.install(on: db)
        }
        let q = try DatabaseQueue(path: path, configuration: config)
        try q.write { db in try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)") }
        let page = 4096
        // 1,500 commits of a page or more each: SQLite's own checkpoint (at 1,000 frames) would
        // have restarted the WAL; ours only flags it.
        for i in 0..<1500 {
            try q.write { db in try db.execute(sql: "INSERT INTO t (id, v) VALUES (?, ?)", arguments: [i, Data(count: 3000)]) }
        }
        let walSize = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(walSize >= 1500 * page)
        #expect(checkpoints.completed == 0)
        // Each commit appended its row's page(s); the count follows the WAL's length.
        #expect(checkpoints.framesWritten >= 1500 && checkpoints.framesWritten <= walSize / page + 1)
        #expect(checkpoints.takeDue())
        #expect(!checkpoints.takeDue(), "one checkpoint scheduled at a time")

        try q.inDatabase { db in checkpoints.checkpoint(db) }
        #expect(checkpoints.completed == 1)
        // The WAL starts again from its beginning: a few commits are far below the threshold.
        for i in 1500..<1510 {
            try q.write { db in try db.execute(sql: "INSERT INTO t (id, v) VALUES (?, ?)", arguments: [i, Data(count: 3000)]) }
        }
        #expect(!checkpoints.takeDue())
        try q.close()

        // Everything is in the file, read back by a connection without the hook.
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM t") } == 1510)
    }
}
