import CSQLiteCrypt
import Foundation
import GRDB

/// WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside the
/// COMMIT that crosses its threshold, with its fsyncs (the only ones WAL with synchronous=NORMAL
/// makes): a thread of Swift's cooperative pool then sleeps for milliseconds in the disk.
/// Installed on a connection, this replaces the automatic checkpoint with a flag the store reads
/// after the transaction (`scheduleIfDue`); the checkpoint then runs on a queue of its own, in
/// the store's usual access to the database.
public final class BackgroundCheckpoint: @unchecked Sendable {
    /// WAL frames after which a checkpoint is due (SQLite's automatic threshold is 1,000).
    public let threshold: Int32
    /// A private serial queue: its thread is not one of the cooperative pool's.
    private let queue = DispatchQueue(label: "simplex.store.checkpoint")
    private let lock = NSLock()
    private var due = false
    private var scheduled = false
    private var completedCount = 0
    private var lastWALFrames: Int32 = 0
    private var framesWrittenCount = 0
    /// Checkpoints run (for tests).
    public var completed: Int { lock.withLock { completedCount } }

    public init(threshold: Int32 = 1000) {
        self.threshold = threshold
    }

    /// Replaces the connection's automatic checkpoint (call it from `prepareDatabase`). The
    /// connection must not outlive this object.
    public func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(db.sqliteConnection, { context, _, _, frames in
            guard let context else { return SQLITE_OK }
            let me = Unmanaged<BackgroundCheckpoint>.fromOpaque(context).takeUnretainedValue()
            me.committed(walFrames: frames)
            return SQLITE_OK
        }, context)
    }

    /// `frames`: the WAL's length after the commit; shorter than before when the commit started
    /// the WAL again (then all its frames are this commit's).
    private func committed(walFrames frames: Int32) {
        lock.withLock {
            framesWrittenCount += Int(frames > lastWALFrames ? frames - lastWALFrames : frames)
            lastWALFrames = frames
            if frames >= threshold { due = true }
        }
    }

    /// Pages appended to the WAL by commits so far (one frame is one page): what a transaction
    /// costs in writes, which benchmarks report per message.
    public var framesWritten: Int { lock.withLock { framesWrittenCount } }

    /// After a commit: when a checkpoint is due and none is scheduled, runs `checkpoint(_:)` on the
    /// checkpoint queue through `access`, the store's way into its database (which may find the
    /// store closed and skip it).
    public func scheduleIfDue(_ access: @escaping @Sendable (_ checkpoint: (Database) -> Void) -> Void) {
        guard takeDue() else { return }
        queue.async { access(self.checkpoint) }
    }

    /// Whether a checkpoint should be scheduled now: one is due and none is scheduled.
    public func takeDue() -> Bool {
        lock.withLock {
            guard due, !scheduled else { return false }
            due = false
            scheduled = true
            return true
        }
    }

    /// The checkpoint itself, in the caller's access to the database (the connection is the
    /// only one, in exclusive locking mode, so a passive checkpoint copies the whole WAL).
    /// The first commit after it starts the WAL again with a new header, which SQLite fsyncs;
    /// a commit here (the header's own field rewritten) takes that fsync off the next writer.
    public func checkpoint(_ db: Database) {
        _ = try? db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
        if let version = try? Int.fetchOne(db, sql: "PRAGMA user_version") {
            _ = try? db.execute(sql: "PRAGMA user_version = \(version)")
        }
        lock.withLock {
            due = false
            scheduled = false
            completedCount += 1
        }
    }
}
