import Foundation
import GRDB

/// Content report items (chat version 12): items whose content is a `report` message. Archiving
/// marks them deleted (simplex-chat `markReceivedGroupReportsDeleted`, `markMessageReportsDeleted`).
extension Database {
    private static let isReport = "json_extract(item_content, '$.msgContent.type') = 'report'"

    /// Marks every received, not yet deleted report of the group with `markJSON`; their IDs.
    func markReceivedReportsDeleted(groupId: Int64, markJSON: String, at now: Double) throws -> [Int64] {
        let ids = try Int64.fetchAll(cachedStatement(sql: """
            SELECT chat_item_id FROM chat_items
            WHERE group_id = ? AND item_sent = 0 AND item_deleted IS NULL AND \(Self.isReport) ORDER BY chat_item_id
            """), arguments: [groupId])
        try markItems(ids, markJSON, at: now)
        return ids
    }

    /// Marks the reports quoting one message (by its shared ID) that are not deleted yet; their IDs.
    func markReportsAbout(groupId: Int64, sharedMsgId: String, markJSON: String, at now: Double) throws -> [Int64] {
        let ids = try Int64.fetchAll(cachedStatement(sql: """
            SELECT chat_item_id FROM chat_items
            WHERE group_id = ? AND quoted_shared_msg_id = ? AND item_deleted IS NULL AND \(Self.isReport) ORDER BY chat_item_id
            """), arguments: [groupId, sharedMsgId])
        try markItems(ids, markJSON, at: now)
        return ids
    }

    private func markItems(_ ids: [Int64], _ markJSON: String, at now: Double) throws {
        for id in ids { try markItemDeleted(id, markJSON, at: now) }
    }

    /// Received reports not archived (simplex-chat `getGroupReportsCount_`: ChatStats.reportsCount).
    func receivedReportsCount(groupId: Int64) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: """
            SELECT count(*) FROM chat_items WHERE group_id = ? AND item_sent = 0 AND item_deleted IS NULL AND \(Self.isReport)
            """), arguments: [groupId]) ?? 0
    }

    /// Whether an item is a received report.
    func isReceivedReport(_ itemId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT item_sent = 0 AND \(Self.isReport) FROM chat_items WHERE chat_item_id = ?"),
                          arguments: [itemId]) ?? false
    }

    /// A group by its local name (simplex-chat `getGroupIdByName`).
    func groupId(userId: Int64, named name: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_id FROM groups WHERE user_id = ? AND local_display_name = ?"), arguments: [userId, name])
    }

    /// The latest group item whose text starts with `prefix` (simplex-chat `getGroupChatItemIdByText`):
    /// of anyone, of ours (`ours`), or of the member with that local name.
    func groupItemId(groupId: Int64, textPrefix prefix: String, member: String?, ours: Bool) throws -> Int64? {
        let escaped = prefix.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        if ours {
            return try Int64.fetchOne(cachedStatement(sql: """
                SELECT chat_item_id FROM chat_items WHERE group_id = ? AND item_sent = 1 AND item_text LIKE ? ESCAPE '\\'
                ORDER BY chat_item_id DESC LIMIT 1
                """), arguments: [groupId, escaped])
        }
        if let member {
            return try Int64.fetchOne(cachedStatement(sql: """
                SELECT i.chat_item_id FROM chat_items i JOIN group_members m ON m.group_member_id = i.group_member_id
                WHERE i.group_id = ? AND m.local_display_name = ? AND i.item_text LIKE ? ESCAPE '\\'
                ORDER BY i.chat_item_id DESC LIMIT 1
                """), arguments: [groupId, member, escaped])
        }
        return try Int64.fetchOne(cachedStatement(sql: """
            SELECT chat_item_id FROM chat_items WHERE group_id = ? AND item_text LIKE ? ESCAPE '\\' ORDER BY chat_item_id DESC LIMIT 1
            """), arguments: [groupId, escaped])
    }
}
