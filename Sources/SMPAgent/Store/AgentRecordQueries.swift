import Foundation
import GRDB

/// Lookups of whole records and the short-link key table, named for what the agent asks; the
/// agent code calls these instead of writing queries itself.
extension Database {
    func confirmation(_ confirmationId: String) throws -> ConfirmationRecord? {
        try ConfirmationRecord.fetchOne(self, key: confirmationId)
    }

    func invitation(_ invitationId: String) throws -> InvitationRecord? {
        try InvitationRecord.fetchOne(self, key: invitationId)
    }

    func ratchetRecord(_ connId: String) throws -> RatchetRecord? {
        try RatchetRecord.fetchOne(self, key: connId)
    }

    /// The ratchet after a message: its state replaces the old one and the X3DH keys are dropped.
    func saveRatchetState(_ connId: String, _ state: Data) throws {
        try run("UPDATE ratchets SET ratchet_state = ?, x3dh_private = NULL WHERE conn_id = ?", [state, connId])
    }

    func shortLinkRecord(_ connId: String) throws -> ShortLinkRecord? {
        try ShortLinkRecord.fetchOne(self, key: connId)
    }

    func allRcvQueues() throws -> [RcvQueueRecord] {
        try RcvQueueRecord.fetchAll(self)
    }

    /// The joining side's reply queue waiting for KEY (standard procedure).
    func confirmedRcvQueue(_ connId: String) throws -> RcvQueueRecord? {
        try one(RcvQueueRecord.self, "SELECT * FROM rcv_queues WHERE conn_id = ? AND status = ?", [connId, QueueStatus.confirmed.rawValue])
    }

    // MARK: invitation short links (LKEY sender keys)

    /// The link key and sender key stored for an invitation short link.
    func invShortLinkKeys(server: String, linkId: [UInt8]) throws -> (linkKey: Data, sndPrivateKey: Data)? {
        guard let row = try Row.fetchOne(self, sql: "SELECT link_key, snd_private_key FROM inv_short_links WHERE server = ? AND link_id = ?",
                                         arguments: [server, Data(linkId)]) else { return nil }
        return (row[0], row[1])
    }

    /// Stores (or replaces) the sender key for a link; the queue it secures is learnt later.
    func saveInvShortLinkKey(server: String, linkId: [UInt8], linkKey: [UInt8], sndPrivateKey: [UInt8]) throws {
        try run("""
            INSERT INTO inv_short_links(server, link_id, link_key, snd_private_key) VALUES (?, ?, ?, ?)
            ON CONFLICT(server, link_id) DO UPDATE SET link_key = excluded.link_key, snd_private_key = excluded.snd_private_key, snd_id = NULL
            """, [server, Data(linkId), Data(linkKey), Data(sndPrivateKey)])
    }

    func setInvShortLinkSenderId(server: String, linkId: [UInt8], senderId: [UInt8]) throws {
        try run("UPDATE inv_short_links SET snd_id = ? WHERE server = ? AND link_id = ?", [Data(senderId), server, Data(linkId)])
    }

    func invShortLinkSenderKey(senderId: [UInt8]) throws -> Data? {
        try Data.fetchOne(self, sql: "SELECT snd_private_key FROM inv_short_links WHERE snd_id = ?", arguments: [Data(senderId)])
    }
}
