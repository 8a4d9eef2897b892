import Foundation
import GRDB

/// Queries for messages we send to groups: recipients, messages pending for members not yet
/// connected, per-member delivery statuses, and our actions on group items (simplex-chat
/// Store/Messages.hs and Groups.hs `getGroupMembersForSending`, `getPendingGroupMessages`,
/// `updateGroupSndStatus`, ...).
extension Database {
    /// Current members with a ready connection: `(groupMemberId, agentConnId)` in member order.
    func groupRecipientConnections(groupId: Int64, currentStatuses: String) throws -> [(Int64, String)] {
        try Row.fetchAll(cachedStatement(sql: """
            SELECT m.group_member_id, c.agent_conn_id FROM group_members m
            JOIN connections c ON c.group_member_id = m.group_member_id
            WHERE m.group_id = ? AND m.member_category <> 'user' AND c.conn_status = 'ready' AND m.member_status IN \(currentStatuses)
            ORDER BY m.group_member_id
            """), arguments: [groupId]).map { ($0[0], $0[1]) }
    }

    /// Messages waiting for a member's connection, oldest first.
    func pendingGroupMessageRows(groupMemberId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: "SELECT * FROM pending_group_messages WHERE group_member_id = ? ORDER BY pending_group_message_id"),
                         arguments: [groupMemberId])
    }

    func deletePendingGroupMessage(_ pendingGroupMessageId: Int64) throws {
        try run("DELETE FROM pending_group_messages WHERE pending_group_message_id = ?", [pendingGroupMessageId])
    }

    /// An item of a group chat by id.
    func groupItemRow(_ itemId: Int64, groupId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE chat_item_id = ? AND group_id = ?"), arguments: [itemId, groupId])
    }

    func memberIdOf(groupMemberId: Int64?) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT member_id FROM group_members WHERE group_member_id = ?"), arguments: [groupMemberId])
    }

    func hasGroupItemDelivery(agentConnId: String, agentMsgId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM group_item_deliveries WHERE agent_conn_id = ? AND agent_msg_id = ?"),
                          arguments: [agentConnId, agentMsgId]) == true
    }

    /// The items that went to a member in one agent message (one, or a batch).
    func groupItemIdsDelivered(agentConnId: String, agentMsgId: Int64) throws -> [Int64] {
        try Int64.fetchAll(cachedStatement(sql: "SELECT chat_item_id FROM group_item_deliveries WHERE agent_conn_id = ? AND agent_msg_id = ?"),
                           arguments: [agentConnId, agentMsgId])
    }

    /// A member's copy's delivery status; with `keepDelivered`, a delivered copy stays so.
    func setGroupDeliveryStatus(agentConnId: String, agentMsgId: Int64, _ statusJSON: String, keepDelivered: Bool) throws {
        let sql = keepDelivered
            ? "UPDATE group_item_deliveries SET delivery_status = ? WHERE agent_conn_id = ? AND agent_msg_id = ? AND delivery_status_type <> 'sndRcvd'"
            : "UPDATE group_item_deliveries SET delivery_status = ? WHERE agent_conn_id = ? AND agent_msg_id = ?"
        try cachedStatement(sql: sql).execute(arguments: [statusJSON, agentConnId, agentMsgId])
    }

    /// Every member copy's status of a sent group item.
    func groupDeliveryStatuses(chatItemId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: "SELECT delivery_status FROM group_item_deliveries WHERE chat_item_id = ?"), arguments: [chatItemId])
    }

    func itemGroupId(_ itemId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_id FROM chat_items WHERE chat_item_id = ?"), arguments: [itemId])
    }

    /// Our edit of our own message (possibly live).
    /// Every message of a member in a group, marked deleted (moderated).
    func markMemberItemsDeleted(groupId: Int64, groupMemberId: Int64, deletedJSON: String, at now: Double) throws {
        try run("UPDATE chat_items SET item_deleted = ?, updated_at = ? WHERE group_id = ? AND group_member_id = ? AND item_deleted IS NULL",
                [deletedJSON, now, groupId, groupMemberId])
    }
}
