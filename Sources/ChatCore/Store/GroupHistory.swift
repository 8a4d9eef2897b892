import GRDB

/// The items a host sends a new member as group history (simplex-chat Store/Messages.hs
/// `getGroupHistoryItems`, Store/Files.hs `getRcvFileDescrByRcvFileId`/`getRcvFileDescrBySndFileId`).
extension Database {
    /// The newest `count` message items of the group, oldest first: not deleted and not already
    /// sent to `groupMemberId` (messages that were pending for it while it connected), with their
    /// file if any (`file_id`, `file_name`, `file_size`, `file_sent`, `file_cancelled`).
    func groupHistoryRows(groupId: Int64, groupMemberId: Int64, count: Int) throws -> [Row] {
        let rows = try Row.fetchAll(cachedStatement(sql: """
            SELECT i.chat_item_id, i.item_sent, i.item_ts, i.item_content, i.shared_msg_id, i.group_member_id, i.timed_ttl,
              i.quoted_shared_msg_id, i.quoted_sent_at, i.quoted_content, i.quoted_member_id,
              f.file_id, f.file_name, f.file_size, f.file_sent, f.cancelled AS file_cancelled
            FROM chat_items i
            LEFT JOIN files f ON f.chat_item_id = i.chat_item_id
            WHERE i.group_id = ? AND i.item_deleted IS NULL AND i.group_scope_group_member_id IS NULL
              AND i.item_content_type IN ('sndMsgContent', 'rcvMsgContent')
              AND NOT EXISTS (SELECT 1 FROM group_item_deliveries d WHERE d.chat_item_id = i.chat_item_id AND d.group_member_id = ?)
            ORDER BY i.item_ts DESC, i.chat_item_id DESC
            LIMIT ?
            """), arguments: [groupId, groupMemberId, count])
        return rows.reversed()
    }

    /// A complete description recipients can download the file with: for a received file the
    /// one we got, for a sent file the one a recipient got (simplex-chat reuses it too).
    func historyFileDescription(fileId: Int64, sent: Bool) throws -> String? {
        if sent {
            return try String.fetchOne(cachedStatement(sql: """
                SELECT file_descr_text FROM snd_file_recipients WHERE file_id = ? AND file_descr_text IS NOT NULL
                ORDER BY snd_file_recipient_id LIMIT 1
                """), arguments: [fileId])
        }
        return try String.fetchOne(cachedStatement(sql: """
            SELECT file_descr_text FROM rcv_file_descrs WHERE file_id = ? AND file_descr_complete = 1
            """), arguments: [fileId])
    }
}
