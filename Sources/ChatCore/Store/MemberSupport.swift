import GRDB

/// Member support chats (chat version 15): the scope of a group item.
extension Database {
    /// Puts an item into member `memberGmId`'s support chat (simplex-chat scope tag `member_support`).
    func setItemSupportScope(_ itemId: Int64, memberGmId: Int64) throws {
        try cachedStatement(sql: """
            UPDATE chat_items SET group_scope_tag = 'member_support', group_scope_group_member_id = ? WHERE chat_item_id = ?
            """).execute(arguments: [memberGmId, itemId])
    }

    /// The support chat an item belongs to, nil for the main chat.
    func itemSupportScope(_ itemId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_scope_group_member_id FROM chat_items WHERE chat_item_id = ?"),
                           arguments: [itemId])
    }

    /// A member row id by member ID in a group, the user's membership included.
    func groupMemberGmId(groupId: Int64, memberId: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_member_id FROM group_members WHERE group_id = ? AND member_id = ?"),
                           arguments: [groupId, memberId])
    }

    func setMemberRoleAndStatus(_ groupMemberId: Int64, role: String, status: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE group_members SET member_role = ?, member_status = ?, updated_at = ? WHERE group_member_id = ?")
            .execute(arguments: [role, status, now, groupMemberId])
    }
}
