import Foundation
import GRDB

/// Files sent and received over XFTP (simplex-chat Store/Files.hs, named for what they do):
/// the file row of an item, its recipients (sent files), the description assembled from
/// `x.msg.file.descr` parts (received files), and the XFTP client's saved progress.
extension Database {
    struct NewFile {
        var userId: Int64
        var contactId: Int64?
        var groupId: Int64?
        var groupMemberId: Int64?
        var sent: Bool
        var name: String
        var size: Int64
        var chunkSize: Int64
        var path: String?
        var cryptoArgs: CryptoFileArgs?
        var statusJSON: String
        var invitationJSON: String
        var transferId: String?
        var recipientCount: Int?
        var rcvStatus: String?
        var senderDisplayName: String?
        var sharedMsgId: String?
    }

    func insertFile(_ f: NewFile, at now: Double) throws -> Int64 {
        try cachedStatement(sql: """
            INSERT INTO files (user_id, contact_id, group_id, group_member_id, file_sent, file_name, file_size, chunk_size, file_path,
              file_crypto_key, file_crypto_nonce, ci_file_status, file_invitation, transfer_id, snd_recipient_count, rcv_status,
              sender_display_name, shared_msg_id, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                f.userId, f.contactId, f.groupId, f.groupMemberId, f.sent, f.name, f.size, f.chunkSize, f.path,
                f.cryptoArgs?.fileKey, f.cryptoArgs?.fileNonce, f.statusJSON, f.invitationJSON, f.transferId, f.recipientCount, f.rcvStatus,
                f.senderDisplayName, f.sharedMsgId, now, now,
            ])
        return lastInsertedRowID
    }

    func fileRow(_ fileId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM files WHERE file_id = ?"), arguments: [fileId])
    }

    /// The file of an item (an item has at most one).
    func itemFileRow(_ chatItemId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM files WHERE chat_item_id = ? LIMIT 1"), arguments: [chatItemId])
    }

    func deleteFile(_ fileId: Int64) throws {
        try cachedStatement(sql: "DELETE FROM files WHERE file_id = ?").execute(arguments: [fileId])
    }

    func setFileItem(_ fileId: Int64, chatItemId: Int64, sharedMsgId: String?, at now: Double) throws {
        try cachedStatement(sql: "UPDATE files SET chat_item_id = ?, shared_msg_id = ?, updated_at = ? WHERE file_id = ?")
            .execute(arguments: [chatItemId, sharedMsgId, now, fileId])
    }

    func setFileStatus(_ fileId: Int64, _ statusJSON: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE files SET ci_file_status = ?, updated_at = ? WHERE file_id = ?").execute(arguments: [statusJSON, now, fileId])
    }

    /// Cancelled (or failed for good): nothing more is done with it.
    func setFileCancelled(_ fileId: Int64, _ statusJSON: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE files SET ci_file_status = ?, cancelled = 1, updated_at = ? WHERE file_id = ?")
            .execute(arguments: [statusJSON, now, fileId])
    }

    func setPrivateSndDescr(_ fileId: Int64, _ text: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE files SET private_snd_descr = ?, updated_at = ? WHERE file_id = ?").execute(arguments: [text, now, fileId])
    }

    /// The transfer's local state (encrypted copy, chunks, progress) is gone.
    func setAgentFileDeleted(_ fileId: Int64, at now: Double) throws {
        try cachedStatement(sql: "UPDATE files SET agent_file_deleted = 1, updated_at = ? WHERE file_id = ?").execute(arguments: [now, fileId])
    }

    // MARK: sent files

    func insertSndRecipient(_ fileId: Int64, contactId: Int64?, groupMemberId: Int64?, at now: Double) throws {
        try cachedStatement(sql: """
            INSERT INTO snd_file_recipients (file_id, contact_id, group_member_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [fileId, contactId, groupMemberId, now, now])
    }

    func sndRecipientRows(_ fileId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: "SELECT * FROM snd_file_recipients WHERE file_id = ? ORDER BY snd_file_recipient_id"),
                         arguments: [fileId])
    }

    func setSndRecipient(_ recipientId: Int64, descrText: String?, status: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE snd_file_recipients SET file_descr_text = coalesce(?, file_descr_text), file_status = ?, updated_at = ? WHERE snd_file_recipient_id = ?")
            .execute(arguments: [descrText, status, now, recipientId])
    }

    func setSndRecipientsStatus(_ fileId: Int64, status: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE snd_file_recipients SET file_status = ?, updated_at = ? WHERE file_id = ? AND file_status <> 'complete'")
            .execute(arguments: [status, now, fileId])
    }

    /// The agent message carrying the last part of a contact's description: SENT for it completes the file.
    func setSndRecipientDescrDelivery(_ recipientId: Int64, agentConnId: String, agentMsgId: Int64, at now: Double) throws {
        try cachedStatement(sql: """
            UPDATE snd_file_recipients SET descr_agent_conn_id = ?, descr_agent_msg_id = ?, file_status = 'descr_sending', updated_at = ?
            WHERE snd_file_recipient_id = ?
            """).execute(arguments: [agentConnId, agentMsgId, now, recipientId])
    }

    /// `getSndFTViaMsgDelivery`: the recipient (and its file) whose description went in this
    /// agent message and is not yet complete: `(snd_file_recipient_id, file_id)`.
    func sndRecipientByDescrDelivery(agentConnId: String, agentMsgId: Int64) throws -> (Int64, Int64)? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT snd_file_recipient_id, file_id FROM snd_file_recipients
            WHERE descr_agent_conn_id = ? AND descr_agent_msg_id = ? AND file_status = 'descr_sending'
            """), arguments: [agentConnId, agentMsgId]).map { ($0[0], $0[1]) }
    }

    /// The ready connection a recipient's description goes to: `(connection_id, agent_conn_id, name)`.
    func sndRecipientConnection(contactId: Int64?, groupMemberId: Int64?) throws -> (Int64, String, String)? {
        if let contactId {
            return try Row.fetchOne(cachedStatement(sql: """
                SELECT c.connection_id, c.agent_conn_id, ct.local_display_name FROM connections c JOIN contacts ct ON ct.contact_id = c.contact_id
                WHERE c.contact_id = ? AND c.conn_status = 'ready' ORDER BY c.connection_id DESC LIMIT 1
                """), arguments: [contactId]).map { ($0[0], $0[1], $0[2]) }
        }
        guard let groupMemberId else { return nil }
        return try Row.fetchOne(cachedStatement(sql: """
            SELECT c.connection_id, c.agent_conn_id, m.local_display_name FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id
            WHERE c.group_member_id = ? AND c.conn_status = 'ready' ORDER BY c.connection_id DESC LIMIT 1
            """), arguments: [groupMemberId]).map { ($0[0], $0[1], $0[2]) }
    }

    // MARK: received files

    /// A received file's description as far as it has arrived.
    func rcvFileDescrRow(_ fileId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM rcv_file_descrs WHERE file_id = ?"), arguments: [fileId])
    }

    func insertRcvFileDescr(_ fileId: Int64, _ d: FileDescr, at now: Double) throws {
        try cachedStatement(sql: """
            INSERT INTO rcv_file_descrs (file_id, file_descr_text, file_descr_part_no, file_descr_complete, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [fileId, d.fileDescrText, d.fileDescrPartNo, d.fileDescrComplete, now, now])
    }

    /// Appends the next part (`appendRcvFD`): it must follow the last one, and nothing may follow
    /// a complete description. Returns false (nothing written) for a part out of order.
    func appendRcvFileDescr(_ fileId: Int64, _ d: FileDescr, at now: Double) throws -> Bool {
        guard let r = try rcvFileDescrRow(fileId) else {
            try insertRcvFileDescr(fileId, d, at: now)
            return true
        }
        let partNo: Int = r["file_descr_part_no"], complete: Bool = r["file_descr_complete"]
        guard d.fileDescrPartNo == partNo + 1, !complete else { return false }
        try cachedStatement(sql: """
            UPDATE rcv_file_descrs SET file_descr_text = file_descr_text || ?, file_descr_part_no = ?, file_descr_complete = ?, updated_at = ?
            WHERE file_id = ?
            """).execute(arguments: [d.fileDescrText, d.fileDescrPartNo, d.fileDescrComplete, now, fileId])
        return true
    }

    /// The received file of a message in a direct chat or a group, by the message's shared id.
    func rcvFileId(contactId: Int64?, groupId: Int64?, sharedMsgId: String) throws -> Int64? {
        if let contactId {
            return try Int64.fetchOne(cachedStatement(sql: "SELECT file_id FROM files WHERE contact_id = ? AND shared_msg_id = ? AND file_sent = 0"),
                                      arguments: [contactId, sharedMsgId])
        }
        return try Int64.fetchOne(cachedStatement(sql: "SELECT file_id FROM files WHERE group_id = ? AND shared_msg_id = ? AND file_sent = 0"),
                                  arguments: [groupId, sharedMsgId])
    }

    func setRcvFileAccepted(_ fileId: Int64, path: String, approvedRelays: Bool, cryptoArgs: CryptoFileArgs?, transferId: String,
                            statusJSON: String, at now: Double) throws {
        try cachedStatement(sql: """
            UPDATE files SET rcv_status = 'accepted', file_path = ?, user_approved_relays = ?, file_crypto_key = ?, file_crypto_nonce = ?,
              transfer_id = ?, ci_file_status = ?, updated_at = ? WHERE file_id = ?
            """).execute(arguments: [path, approvedRelays, cryptoArgs?.fileKey, cryptoArgs?.fileNonce, transferId, statusJSON, now, fileId])
    }

    func setRcvStatus(_ fileId: Int64, _ status: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE files SET rcv_status = ?, updated_at = ? WHERE file_id = ?").execute(arguments: [status, now, fileId])
    }

    /// Back to an offer (`resetRcvCIFileStatus`): a cancelled download can be accepted again.
    func resetRcvFile(_ fileId: Int64, statusJSON: String, at now: Double) throws {
        try cachedStatement(sql: """
            UPDATE files SET rcv_status = 'new', file_path = NULL, file_crypto_key = NULL, file_crypto_nonce = NULL, transfer_id = NULL,
              ci_file_status = ?, updated_at = ? WHERE file_id = ?
            """).execute(arguments: [statusJSON, now, fileId])
    }

    // MARK: resuming

    /// Uploads not finished and downloads under way when the agent stopped.
    func unfinishedTransferIds() throws -> (uploads: [Int64], downloads: [Int64]) {
        let up = try Int64.fetchAll(cachedStatement(sql: """
            SELECT file_id FROM files WHERE file_sent = 1 AND cancelled = 0 AND private_snd_descr IS NULL AND transfer_id IS NOT NULL
              AND json_extract(ci_file_status, '$.type') IN ('sndStored', 'sndTransfer', 'sndWarning')
            ORDER BY file_id
            """))
        let down = try Int64.fetchAll(cachedStatement(sql: """
            SELECT file_id FROM files WHERE file_sent = 0 AND cancelled = 0 AND rcv_status = 'connected' ORDER BY file_id
            """))
        return (up, down)
    }

    // MARK: progress

    func progress(_ key: String) throws -> [UInt8]? {
        try Data.fetchOne(cachedStatement(sql: "SELECT progress FROM xftp_progress WHERE progress_key = ?"), arguments: [key]).map { Array($0) }
    }

    func saveProgress(_ key: String, _ value: [UInt8], at now: Double) throws {
        try cachedStatement(sql: "INSERT OR REPLACE INTO xftp_progress (progress_key, progress, updated_at) VALUES (?, ?, ?)")
            .execute(arguments: [key, Data(value), now])
    }

    func removeProgress(_ key: String) throws {
        try cachedStatement(sql: "DELETE FROM xftp_progress WHERE progress_key = ?").execute(arguments: [key])
    }

    func removeProgress(prefix: String) throws {
        try cachedStatement(sql: "DELETE FROM xftp_progress WHERE substr(progress_key, 1, ?) = ?").execute(arguments: [prefix.count, prefix])
    }
}
