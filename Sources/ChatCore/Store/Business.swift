import Foundation
import GRDB

/// Business chat columns of `groups` (simplex-chat `business_chat`, `business_member_id`,
/// `customer_member_id`; migration m20261124b_business_chats).
extension Database {
    /// Marks a group as a business chat: `type` is the other side as we see it (`customer` on
    /// the business's side, `business` on the customer's).
    func setBusinessChat(_ groupId: Int64, type: BusinessChatType, businessMemberId: String, customerMemberId: String) throws {
        try execute(sql: "UPDATE groups SET business_chat = ?, business_member_id = ?, customer_member_id = ? WHERE group_id = ?",
                    arguments: [type.rawValue, businessMemberId, customerMemberId, groupId])
    }

    /// Keeps the connection when its contact is deleted (simplex-chat `deleteContactCardKeepConn`).
    func detachConnectionFromContact(agentConnId: String) throws {
        try execute(sql: "UPDATE connections SET contact_id = NULL WHERE agent_conn_id = ?", arguments: [agentConnId])
    }

    /// The address a connection came through (simplex-chat `connections.user_contact_link_id`).
    func setConnectionUserContactLink(agentConnId: String, _ linkId: Int64) throws {
        try execute(sql: "UPDATE connections SET user_contact_link_id = ? WHERE agent_conn_id = ?", arguments: [linkId, agentConnId])
    }

    /// A prepared chat's received items (the welcome, the feature items) were made before the host
    /// member existed; once it does, they are its items, so its x.msg.update finds the welcome.
    func attachReceivedItems(groupId: Int64, toMember groupMemberId: Int64) throws {
        try execute(sql: "UPDATE chat_items SET group_member_id = ? WHERE group_id = ? AND item_sent = 0 AND group_member_id IS NULL",
                    arguments: [groupMemberId, groupId])
    }

    /// Whether the chat has its received feature items already (a prepared chat makes them early).
    func hasReceivedFeatureItems(groupId: Int64) throws -> Bool {
        try Bool.fetchOne(self, sql: """
            SELECT 1 FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL
              AND json_extract(item_content, '$.type') = 'rcvGroupFeature' LIMIT 1
            """, arguments: [groupId]) ?? false
    }

    func setBusinessRequestId(_ groupId: Int64, _ xContactId: String) throws {
        try execute(sql: "UPDATE groups SET business_xcontact_id = ? WHERE group_id = ?", arguments: [xContactId, groupId])
    }

    /// The business chat made for this request ID, if any.
    func businessGroupId(userId: Int64, xContactId: String) throws -> Int64? {
        try Int64.fetchOne(self, sql: "SELECT group_id FROM groups WHERE user_id = ? AND business_xcontact_id = ?", arguments: [userId, xContactId])
    }
}
