import GRDB

/// The items a host sends a new member as group history (simplex-chat Store/Messages.hs
/// `getGroupHistoryItems`).
extension Database {
    /// The newest `count` message items of the group, oldest first: not deleted, without a file
    /// (files are not forwarded in history yet), and not already sent to `groupMemberId` (messages
    /// that were pending for it while it connected).
    func groupHistoryRows(groupId: Int64, groupMemberId: Int64, count: Int) throws -> [Row] {
        let rows = try Row.fetchAll(cachedStatement(sql: """
            SELECT i.chat_item_id, i.item_sent, i.item_ts, i.item_content, i.shared_msg_id, i.group_member_id, i.timed_ttl,
              i.quoted_shared_msg_id, i.quoted_sent_at, i.quoted_content, i.quoted_member_id
            FROM chat_items i
            WHERE i.group_id = ? AND i.item_deleted IS NULL
              AND i.item_content_type IN ('sndMsgContent', 'rcvMsgContent')
              AND NOT EXISTS (SELECT 1 FROM files f WHERE f.chat_item_id = i.chat_item_id)
              AND NOT EXISTS (SELECT 1 FROM group_item_deliveries d WHERE d.chat_item_id = i.chat_item_id AND d.group_member_id = ?)
            ORDER BY i.item_ts DESC, i.chat_item_id DESC
            LIMIT ?
            """), arguments: [groupId, groupMemberId, count])
        return rows.reversed()
    }
}
