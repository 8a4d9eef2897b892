import Foundation
import GRDB
import XCTest

@testable import SMPAgent

/// A database written before ratchet re-synchronization and queue rotation upgrades in place:
/// its rows read with the reference's defaults (state ok, queues primary, no switch).
final class AgentMigrationTests: XCTestCase {
    func testUpgradeFromShortLinksSchema() throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/old.db"
        let q = try DatabaseQueue(path: path)
        try AgentMigrations.migrator.migrate(q, upTo: "m20261123_short_links")
        try q.write { db in
            try db.execute(sql: """
                INSERT INTO connections (conn_id, conn_mode, initiator, status, agent_version, pq_support, created_at)
                VALUES ('c1', 'invitation', 1, 'active', 7, 1, 0);
                INSERT INTO rcv_queues (conn_id, server, rcv_id, snd_id, rcv_private_key, rcv_dh_secret, e2e_private_key, snd_secure, status, smp_client_version)
                VALUES ('c1', 'smp://a@h', x'01', x'02', x'03', x'04', x'05', 1, 'active', 4);
                INSERT INTO snd_queues (conn_id, server, snd_id, snd_private_key, e2e_private_key, e2e_dh_secret, snd_secure, status, smp_client_version)
                VALUES ('c1', 'smp://a@h', x'06', x'07', x'08', x'09', 1, 'active', 4);
                INSERT INTO snd_messages (conn_id, internal_id, internal_snd_id, msg_type, msg_hash, envelope, status, created_at)
                VALUES ('c1', 1, 1, 'message', x'00', x'00', 'pending', 0);
                """)
        }
        try q.close()

        let store = try AgentStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.appliedMigrations(), AgentMigrations.known)
        try store.read { db in
            let conn = try XCTUnwrap(try db.connectionRecord("c1"))
            XCTAssertEqual(conn.ratchetSyncState, .ok)
            let rq = try XCTUnwrap(try db.rcvQueues("c1").first)
            XCTAssertTrue(rq.primaryQueue)
            XCTAssertNil(rq.replaceRcvQueueId)
            XCTAssertNil(rq.switchStatus)
            let sq = try XCTUnwrap(try db.sndQueues("c1").first)
            XCTAssertNil(sq.replaceSndQueueId)
            let m = try XCTUnwrap(try db.one(SndMessageRecord.self, "SELECT * FROM snd_messages WHERE conn_id = 'c1'"))
            XCTAssertNil(m.sndQueueId)
            XCTAssertFalse(try db.ratchetKeyHashExists("c1", [1, 2, 3]))
        }
    }

    /// Before prepared messages, every queued message kept its whole envelope: a pending one is
    /// still sent from it after the upgrade, and sent ones lose theirs.
    func testUpgradeKeepsPendingEnvelopes() throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/old.db"
        let q = try DatabaseQueue(path: path)
        try AgentMigrations.migrator.migrate(q, upTo: "m20261124_queue_rotation")
        try q.write { db in
            try db.execute(sql: """
                INSERT INTO connections (conn_id, conn_mode, initiator, status, agent_version, pq_support, created_at)
                VALUES ('c1', 'invitation', 1, 'active', 7, 1, 0);
                INSERT INTO snd_messages (conn_id, internal_id, internal_snd_id, msg_type, msg_hash, envelope, status, created_at)
                VALUES ('c1', 1, 1, 'message', x'00', x'0102', 'sent', 0),
                       ('c1', 2, 2, 'message', x'00', x'0304', 'pending', 0);
                """)
        }
        try q.close()

        let store = try AgentStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.appliedMigrations(), AgentMigrations.known)
        try store.read { db in
            let sent = try XCTUnwrap(try db.one(SndMessageRecord.self, "SELECT * FROM snd_messages WHERE internal_id = 1"))
            XCTAssertNil(sent.envelope)
            XCTAssertNil(try sent.envelopeToSend())
            let pending = try XCTUnwrap(try db.nextPendingSndMessage("c1"))
            XCTAssertEqual(pending.internalId, 2)
            XCTAssertNil(pending.prepared)
            XCTAssertEqual(try pending.envelopeToSend(), [3, 4])
        }
    }

    /// The pending-messages index becomes partial: pending messages of a file from before are
    /// still found in order, through it, and a sent one leaves it.
    func testPendingIndexHoldsPendingMessagesOnly() throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/old.db"
        let q = try DatabaseQueue(path: path)
        try AgentMigrations.migrator.migrate(q, upTo: "m20261125_pending_receipts")
        try q.write { db in
            try db.execute(sql: """
                INSERT INTO connections (conn_id, conn_mode, initiator, status, agent_version, pq_support, created_at)
                VALUES ('c1', 'invitation', 1, 'active', 7, 1, 0);
                INSERT INTO snd_messages (conn_id, internal_id, internal_snd_id, msg_type, msg_hash, status, created_at)
                VALUES ('c1', 1, 1, 'message', x'00', 'sent', 0),
                       ('c1', 2, 2, 'message', x'00', 'pending', 0),
                       ('c1', 3, 3, 'message', x'00', 'pending', 0);
                """)
        }
        try q.close()

        let store = try AgentStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.appliedMigrations(), AgentMigrations.known)
        try store.read { db in
            let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'idx_snd_messages_pending'")
            XCTAssertEqual(sql, "CREATE INDEX idx_snd_messages_pending ON snd_messages(conn_id, internal_id) WHERE status = 'pending'")
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM snd_messages WHERE conn_id = 'c1' AND status = 'pending' AND internal_id > 0 ORDER BY internal_id LIMIT 1")
                .map { $0["detail"] as String }.joined(separator: "; ")
            XCTAssertTrue(plan.contains("idx_snd_messages_pending"), plan)
            XCTAssertEqual(try db.nextPendingSndMessage("c1")?.internalId, 2)
            XCTAssertEqual(try db.nextPendingSndMessage("c1", after: 2)?.internalId, 3)
            XCTAssertEqual(try db.pendingMessageCount("c1"), 2)
        }
        _ = try store.write { db in try db.markSndMessageSent("c1", internalId: 2) }
        try store.read { db in
            XCTAssertEqual(try db.nextPendingSndMessage("c1")?.internalId, 3)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM snd_messages INDEXED BY idx_snd_messages_pending WHERE status = 'pending'"), 1)
        }
    }
}
