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

    /// The address a connection came through (simplex-chat `connections.user_contact_link_id`).
    func setConnectionUserContactLink(agentConnId: String, _ linkId: Int64) throws {
        try execute(sql: "UPDATE connections SET user_contact_link_id = ? WHERE agent_conn_id = ?", arguments: [linkId, agentConnId])
    }
}
