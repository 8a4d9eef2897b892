import Foundation
import GRDB
import SimplexStore

/// Queries on queues, messages and connection states, named for what they do, so the agent's
/// feature code holds no SQL.
extension Database {
    // MARK: connections

    func setConnectionStatus(_ connId: String, _ status: String) throws {
        try run("UPDATE connections SET status = ? WHERE conn_id = ?", [status, connId])
    }

    /// A confirmation processed: the connection's new status and the hash chain's first link.
    func setConnectionConfirmed(_ connId: String, status: String, firstMessageHash: [UInt8]) throws {
        try run("UPDATE connections SET status = ?, last_external_snd_msg_id = 1, last_rcv_msg_hash = ? WHERE conn_id = ?",
                [status, Data(firstMessageHash), connId])
    }

    /// simplexmq `setConnAgentVersion`: the agent version agreed with the peer.
    func setConnectionAgentVersion(_ connId: String, _ version: UInt16) throws {
        try run("UPDATE connections SET agent_version = ? WHERE conn_id = ?", [Int(version), connId])
    }

    func setConnectionPQSupport(_ connId: String, _ pq: Bool) throws {
        try run("UPDATE connections SET pq_support = ? WHERE conn_id = ?", [pq, connId])
    }

    func markConfirmationAccepted(_ confirmationId: String) throws {
        try run("UPDATE confirmations SET accepted = 1 WHERE confirmation_id = ?", [confirmationId])
    }

    func markInvitationAccepted(_ invitationId: String) throws {
        try run("UPDATE invitations SET accepted = 1 WHERE invitation_id = ?", [invitationId])
    }

    func deleteInvitationShortLink(sndId: [UInt8]) throws {
        try run("DELETE FROM inv_short_links WHERE snd_id = ?", [Data(sndId)])
    }

    // MARK: receiving queues

    func rcvQueue(_ rcvQueueId: Int64) throws -> RcvQueueRecord? {
        try one(RcvQueueRecord.self, "SELECT * FROM rcv_queues WHERE rcv_queue_id = ?", [rcvQueueId])
    }

    /// The queue a relay delivered to.
    func rcvQueue(server: String, rcvId: [UInt8]) throws -> RcvQueueRecord? {
        try one(RcvQueueRecord.self, "SELECT * FROM rcv_queues WHERE server = ? AND rcv_id = ?", [server, Data(rcvId)])
    }

    /// A connection's receiving queues, primary first.
    func rcvQueues(_ connId: String) throws -> [RcvQueueRecord] {
        try allRows(cachedStatement(sql: "SELECT * FROM rcv_queues WHERE conn_id = ? ORDER BY primary_queue DESC, rcv_queue_id"), [connId]) {
            RcvQueueRecord(columns: $0)
        }
    }

    func setRcvQueueStatus(_ rcvQueueId: Int64?, _ status: String) throws {
        try run("UPDATE rcv_queues SET status = ? WHERE rcv_queue_id = ?", [status, rcvQueueId])
    }

    func setRcvQueuesStatus(connId: String, _ status: String) throws {
        try run("UPDATE rcv_queues SET status = ? WHERE conn_id = ?", [status, connId])
    }

    func rcvQueueIsActive(connId: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT status = 'active' FROM rcv_queues WHERE conn_id = ?"), arguments: [connId]) ?? false
    }

    /// The sender's confirmation on a queue: its status, the queue's e2e secret and, when the
    /// sender did not secure it itself, the key to secure it with.
    func setRcvQueueE2E(_ rcvQueueId: Int64?, status: String, dhSecret: Data, senderKey: Data? = nil) throws {
        if let senderKey {
            try run("UPDATE rcv_queues SET status = ?, e2e_dh_secret = ?, snd_key = ? WHERE rcv_queue_id = ?", [status, dhSecret, senderKey, rcvQueueId])
        } else {
            try run("UPDATE rcv_queues SET status = ?, e2e_dh_secret = ? WHERE rcv_queue_id = ?", [status, dhSecret, rcvQueueId])
        }
    }

    /// KEY done: the sender's key is at the relay and no longer needed here.
    func markRcvQueueSecured(_ rcvQueueId: Int64?) throws {
        try run("UPDATE rcv_queues SET status = 'secured', snd_key = NULL WHERE rcv_queue_id = ?", [rcvQueueId])
    }

    func setRcvSwitchStatus(_ rcvQueueId: Int64?, _ status: RcvSwitchStatus?) throws {
        try run("UPDATE rcv_queues SET switch_status = ? WHERE rcv_queue_id = ?", [status?.rawValue, rcvQueueId])
    }

    func deleteRcvQueue(_ rcvQueueId: Int64?) throws {
        try run("DELETE FROM rcv_queues WHERE rcv_queue_id = ?", [rcvQueueId])
    }

    /// The old queue of a completed switch goes; the new one stops naming it.
    func deleteReplacedRcvQueue(_ oldId: Int64?) throws {
        try run("UPDATE rcv_queues SET replace_rcv_queue_id = NULL WHERE replace_rcv_queue_id = ?", [oldId])
        try deleteRcvQueue(oldId)
    }

    func makeRcvQueuePrimary(_ rcvQueueId: Int64?) throws {
        try run("UPDATE rcv_queues SET status = 'active', primary_queue = 1 WHERE rcv_queue_id = ?", [rcvQueueId])
    }

    /// QKEY received: the new queue is confirmed with the sender's keys and version.
    func confirmSwitchQueue(_ rcvQueueId: Int64?, dhSecret: Data, senderKey: Data, smpClientVersion: Int) throws {
        try run("""
            UPDATE rcv_queues SET status = 'confirmed', e2e_dh_secret = ?, snd_key = ?, smp_client_version = ? WHERE rcv_queue_id = ?
            """, [dhSecret, senderKey, smpClientVersion, rcvQueueId])
    }

    /// A switch's new queue confirmed but not secured yet (resumed at start).
    func switchQueueToSecure(_ connId: String) throws -> RcvQueueRecord? {
        try RcvQueueRecord.fetchOne(self, sql: """
            SELECT * FROM rcv_queues WHERE conn_id = ? AND status = 'confirmed' AND snd_key IS NOT NULL AND replace_rcv_queue_id IS NOT NULL
            """, arguments: [connId])
    }

    /// `(server, status, switch_status)` of the receiving queues, for connection stats.
    func rcvQueueStatRows(_ connId: String) throws -> [Row] {
        try Row.fetchAll(self, sql: "SELECT server, status, switch_status FROM rcv_queues WHERE conn_id = ? ORDER BY rcv_queue_id", arguments: [connId])
    }

    // MARK: sending queues

    func sndQueue(_ sndQueueId: Int64) throws -> SndQueueRecord? {
        try one(SndQueueRecord.self, "SELECT * FROM snd_queues WHERE snd_queue_id = ?", [sndQueueId])
    }

    func sndQueues(_ connId: String) throws -> [SndQueueRecord] {
        try allRows(cachedStatement(sql: "SELECT * FROM snd_queues WHERE conn_id = ? ORDER BY snd_queue_id"), [connId]) { SndQueueRecord(columns: $0) }
    }

    /// The queue messages go to: the one not replacing another (the old one until a switch completes).
    func currentSndQueue(_ connId: String) throws -> SndQueueRecord? {
        try one(SndQueueRecord.self, """
            SELECT * FROM snd_queues WHERE conn_id = ? ORDER BY replace_snd_queue_id IS NOT NULL, snd_queue_id LIMIT 1
            """, [connId])
    }

    func hasSndQueue(_ connId: String) throws -> Bool {
        try Int.fetchOne(cachedStatement(sql: "SELECT count(*) FROM snd_queues WHERE conn_id = ?"), arguments: [connId]) ?? 0 > 0
    }

    func sndQueueServer(_ connId: String) throws -> String? {
        try String.fetchOne(self, sql: "SELECT server FROM snd_queues WHERE conn_id = ?", arguments: [connId])
    }

    func setSndQueueStatus(_ sndQueueId: Int64?, _ status: String) throws {
        try run("UPDATE snd_queues SET status = ? WHERE snd_queue_id = ?", [status, sndQueueId])
    }

    func setSndQueuesStatus(connId: String, _ status: String) throws {
        try run("UPDATE snd_queues SET status = ? WHERE conn_id = ?", [status, connId])
    }

    func setSndSwitchStatus(_ sndQueueId: Int64?, _ status: SndSwitchStatus) throws {
        try run("UPDATE snd_queues SET switch_status = ? WHERE snd_queue_id = ?", [status.rawValue, sndQueueId])
    }

    func deleteSndQueue(_ sndQueueId: Int64?) throws {
        try run("DELETE FROM snd_queues WHERE snd_queue_id = ?", [sndQueueId])
    }

    /// QTEST sent on the new queue: it becomes the primary one, messages still waiting for the
    /// old queue go to it, and the old queue goes.
    func completeSndQueueSwitch(connId: String, new: Int64?, old: Int64) throws {
        try run("UPDATE snd_queues SET status = 'active', replace_snd_queue_id = NULL, primary_queue = 1 WHERE snd_queue_id = ?", [new])
        try run("UPDATE snd_messages SET snd_queue_id = NULL WHERE conn_id = ? AND snd_queue_id = ?", [connId, old])
        try deleteSndQueue(old)
    }

    /// `(server, status, switch_status)` of the sending queues, for connection stats.
    func sndQueueStatRows(_ connId: String) throws -> [Row] {
        try Row.fetchAll(self, sql: "SELECT server, status, switch_status FROM snd_queues WHERE conn_id = ? ORDER BY snd_queue_id", arguments: [connId])
    }

    // MARK: messages

    func rcvMessage(_ connId: String, internalId: Int64) throws -> RcvMessageRecord? {
        try one(RcvMessageRecord.self, "SELECT * FROM rcv_messages WHERE conn_id = ? AND internal_id = ?", [connId, internalId])
    }

    /// A message stored before (our ACK was lost, or we crashed before it).
    func rcvMessage(_ connId: String, brokerId: [UInt8]) throws -> RcvMessageRecord? {
        try one(RcvMessageRecord.self, "SELECT * FROM rcv_messages WHERE conn_id = ? AND broker_id = ?", [connId, Data(brokerId)])
    }

    func markRcvMessageAcknowledged(_ connId: String, internalId: Int64) throws {
        try run("UPDATE rcv_messages SET user_ack = 1 WHERE conn_id = ? AND internal_id = ?", [connId, internalId])
    }

    /// The connection's first pending message after `after` (messages up to it were sent, their
    /// marks possibly still deferred).
    func nextPendingSndMessage(_ connId: String, after: Int64 = 0) throws -> SndMessageRecord? {
        try one(SndMessageRecord.self, "SELECT * FROM snd_messages WHERE conn_id = ? AND status = 'pending' AND internal_id > ? ORDER BY internal_id LIMIT 1",
                [connId, after])
    }

    /// User messages are stored prepared (a few hundred bytes), so clearing what was sent
    /// rewrites a small row. The whole envelopes of the few handshake messages are cleared when
    /// the agent starts (`clearSentEnvelopes`), not here, where the rewrite would cost 16 KB.
    func markSndMessageSent(_ connId: String, internalId: Int64) throws {
        try run("UPDATE snd_messages SET status = 'sent', prepared = NULL WHERE conn_id = ? AND internal_id = ?",
                [connId, internalId])
    }

    /// Uses the partial index of rows that still hold an envelope.
    func clearSentEnvelopes() throws {
        try run("UPDATE snd_messages SET envelope = NULL WHERE status = 'sent' AND envelope IS NOT NULL")
    }

    // MARK: delivery receipts waiting to be sent

    /// A receipt acknowledged by the layer above (written deferred): nothing when the connection
    /// was deleted since.
    func insertPendingReceiptIfConnected(_ connId: String, _ r: AMessageReceipt) throws {
        try run("""
            INSERT OR IGNORE INTO pending_receipts (conn_id, agent_msg_id, msg_hash, rcpt_info)
            SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM connections WHERE conn_id = ?)
            """, [connId, r.agentMsgId, Data(r.msgHash), Data(r.rcptInfo), connId])
    }


    /// The message a receipt refers to: the receipt names its `internal_snd_id`.
    func sndMessage(_ connId: String, sndMsgId: Int64) throws -> SndMessageRecord? {
        try one(SndMessageRecord.self, "SELECT * FROM snd_messages WHERE conn_id = ? AND internal_snd_id = ?", [connId, sndMsgId])
    }

    func hasPendingReceipts(_ connId: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM pending_receipts WHERE conn_id = ?)"), arguments: [connId]) ?? false
    }

    /// The oldest `limit` receipts waiting on the connection, in the order they were acknowledged.
    func pendingReceipts(_ connId: String, limit: Int) throws -> [AMessageReceipt] {
        try Row.fetchAll(cachedStatement(sql: "SELECT agent_msg_id, msg_hash, rcpt_info FROM pending_receipts WHERE conn_id = ? ORDER BY rowid LIMIT ?"),
                         arguments: [connId, limit]).map { row in
            AMessageReceipt(agentMsgId: row[0], msgHash: [UInt8](row[1] as Data), rcptInfo: [UInt8](row[2] as Data))
        }
    }

    func deletePendingReceipts(_ connId: String, agentMsgIds: [Int64]) throws {
        for id in agentMsgIds {
            try run("DELETE FROM pending_receipts WHERE conn_id = ? AND agent_msg_id = ?", [connId, id])
        }
    }

    func markSndMessageFailed(_ connId: String, internalId: Int64) throws {
        try run("UPDATE snd_messages SET status = 'failed', envelope = NULL, prepared = NULL WHERE conn_id = ? AND internal_id = ?",
                [connId, internalId])
    }

    // MARK: ratchet re-synchronization

    func setRatchetSyncState(_ connId: String, _ state: RatchetSyncState) throws {
        try run("UPDATE connections SET ratchet_sync_state = ? WHERE conn_id = ?", [state.rawValue, connId])
    }

    /// Our X3DH keys of a sync in progress (nil clears them).
    func setRatchetSyncKeys(_ connId: String, _ keys: [UInt8]?) throws {
        try run("UPDATE ratchets SET sync_x3dh_private = ? WHERE conn_id = ?", [keys.map { Data($0) }, connId])
    }

    func ratchetSyncKeys(_ connId: String) throws -> Data? {
        try Data.fetchOne(self, sql: "SELECT sync_x3dh_private FROM ratchets WHERE conn_id = ?", arguments: [connId])
    }

    /// A connection with queues both ways (simplexmq `DuplexConnection`).
    func isDuplex(_ connId: String) throws -> Bool {
        try Bool.fetchOne(self, sql: """
            SELECT EXISTS(SELECT 1 FROM rcv_queues WHERE conn_id = ?) AND EXISTS(SELECT 1 FROM snd_queues WHERE conn_id = ?)
            """, arguments: [connId, connId]) ?? false
    }

    func ratchetKeyHashExists(_ connId: String, _ hash: [UInt8]) throws -> Bool {
        try Bool.fetchOne(self, sql: "SELECT EXISTS(SELECT 1 FROM processed_ratchet_key_hashes WHERE conn_id = ? AND hash = ?)",
                          arguments: [connId, Data(hash)]) ?? false
    }

    func recordRatchetKeyHash(_ connId: String, _ hash: [UInt8], at now: Double) throws {
        try run("INSERT INTO processed_ratchet_key_hashes (conn_id, hash, created_at) VALUES (?, ?, ?)", [connId, Data(hash), now])
    }
}
