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

    /// The support chat of a member's item found by its shared message ID: nil when there is no such
    /// item, `.some(nil)` when it is in the main chat.
    func memberItemSupportScope(groupId: Int64, memberGmId: Int64, sharedMsgId: String) throws -> Int64?? {
        guard let row = try Row.fetchOne(cachedStatement(sql: """
            SELECT group_scope_group_member_id FROM chat_items WHERE group_id = ? AND group_member_id = ? AND shared_msg_id = ? LIMIT 1
            """), arguments: [groupId, memberGmId, sharedMsgId]) else { return nil }
        return .some(row[0] as Int64?)
    }

    /// A member row id by member ID in a group, the user's membership included.
    func groupMemberGmId(groupId: Int64, memberId: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT group_member_id FROM group_members WHERE group_id = ? AND member_id = ?"),
                           arguments: [groupId, memberId])
    }

    /// A member admitted (or moved to review): the group's counter follows (simplex-chat
    /// `updateGroupMemberAccepted` then `updateGroupMembersRequireAttention`).
    func setMemberRoleAndStatus(_ groupMemberId: Int64, role: String, status: String, at now: Double) throws {
        let before = try memberRequiresAttention(groupMemberId)
        try cachedStatement(sql: "UPDATE group_members SET member_role = ?, member_status = ?, updated_at = ? WHERE group_member_id = ?")
            .execute(arguments: [role, status, now, groupMemberId])
        try followRequiresAttention(groupMemberId, before: before)
    }
}

/// How an item changes a support chat's "member attention" (simplex-chat `MemberAttention`):
/// the member's own messages add to it, an answer from a moderator clears it.
enum SupportAttention {
    /// Adds `count`; `fromMemberTs` is set when the member wrote (its newest message's time).
    case inc(Int, fromMemberTs: Double?)
    case reset
}

extension Database {
    /// Counters of member `gmId`'s support chat after an item in it (simplex-chat
    /// `updateChatTsStats` with a member's scope): its time, unread items, items mentioning us,
    /// and the member's messages not answered yet.
    func updateSupportChatStats(_ gmId: Int64, unread: Int, mentions: Int, attention: SupportAttention, at now: Double) throws {
        let (reset, add, fromTs): (Bool, Int, Double?) = switch attention {
        case .inc(let n, let ts): (false, n, ts)
        case .reset: (true, 0, nil)
        }
        let before = try memberRequiresAttention(gmId)
        defer { try? followRequiresAttention(gmId, before: before) }
        try cachedStatement(sql: """
            UPDATE group_members SET support_chat_ts = ?,
              support_chat_items_unread = support_chat_items_unread + ?,
              support_chat_items_mentions = support_chat_items_mentions + ?,
              support_chat_items_member_attention = CASE WHEN ? THEN 0 ELSE support_chat_items_member_attention + ? END,
              support_chat_last_msg_from_member_ts = COALESCE(?, support_chat_last_msg_from_member_ts)
            WHERE group_member_id = ?
            """).execute(arguments: [now, unread, mentions, reset, add, fromTs, gmId])
    }

    /// Marks a support chat's received items read and clears its counters: unread items, mentions
    /// and the member's messages waiting for an answer (simplex-chat `updateSupportChatItemsRead`
    /// sets all three to 0).
    func readSupportChat(groupId: Int64, memberGmId: Int64, to read: String) throws {
        // The counter only goes down here.
        let before = try memberRequiresAttention(memberGmId)
        defer { try? followRequiresAttention(memberGmId, before: before, downOnly: true) }
        try cachedStatement(sql: """
            UPDATE chat_items SET item_status = ?
            WHERE group_id = ? AND group_scope_group_member_id = ? AND item_status_type = 'rcvNew'
            """).execute(arguments: [read, groupId, memberGmId])
        try cachedStatement(sql: """
            UPDATE group_members SET support_chat_items_unread = 0, support_chat_items_mentions = 0, support_chat_items_member_attention = 0
            WHERE group_member_id = ?
            """).execute(arguments: [memberGmId])
    }

    /// Some of a support chat's items were read (simplex-chat `updateGroupScopeUnreadStats`): its
    /// counters go down by what was read, never below 0, and the group's counter with them.
    func lowerSupportChatStats(_ gmId: Int64, unread: Int, attention: Int, mentions: Int, at now: Double) throws {
        let before = try memberRequiresAttention(gmId)
        try cachedStatement(sql: """
            UPDATE group_members SET support_chat_items_unread = max(0, support_chat_items_unread - ?),
              support_chat_items_member_attention = max(0, support_chat_items_member_attention - ?),
              support_chat_items_mentions = max(0, support_chat_items_mentions - ?), updated_at = ?
            WHERE group_member_id = ?
            """).execute(arguments: [unread, attention, mentions, now, gmId])
        try followRequiresAttention(gmId, before: before, downOnly: true)
    }

    /// `/_delete member chat` (simplex-chat `deleteGroupMemberSupportChat`): the chat's items and
    /// counters go; a member that needed attention no longer counts.
    func deleteMemberSupportChat(_ gmId: Int64, at now: Double) throws {
        if try memberRequiresAttention(gmId) { try decreaseMembersRequireAttention(memberOf: gmId) }
        try cachedStatement(sql: "DELETE FROM chat_items WHERE group_scope_group_member_id = ?").execute(arguments: [gmId])
        try cachedStatement(sql: """
            UPDATE group_members SET support_chat_ts = NULL, support_chat_items_unread = 0, support_chat_items_member_attention = 0,
              support_chat_items_mentions = 0, support_chat_last_msg_from_member_ts = NULL, updated_at = ?
            WHERE group_member_id = ?
            """).execute(arguments: [now, gmId])
    }
}

extension Database {
    /// Marks a group's main chat read; support chats are read on their own (their counters stay).
    func readMainGroupChat(groupId: Int64, to read: String) throws {
        try cachedStatement(sql: """
            UPDATE chat_items SET item_status = ?
            WHERE group_id = ? AND group_scope_group_member_id IS NULL AND item_status_type = 'rcvNew'
            """).execute(arguments: [read, groupId])
    }
}

extension Database {
    /// GroupInfo.membersRequireAttention: simplex-chat's stored counter (`groups.members_require_attention`),
    /// moved at the sites where it moves it.
    func membersRequireAttention(groupId: Int64) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: "SELECT members_require_attention FROM groups WHERE group_id = ?"), arguments: [groupId]) ?? 0
    }

    /// simplex-chat `gmRequiresAttention` for another member: pending approval or review, or its
    /// support chat has messages that need an answer or mention us. Never our own membership.
    func memberRequiresAttention(_ groupMemberId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: """
            SELECT 1 FROM group_members WHERE group_member_id = ? AND member_category <> 'user'
              AND (member_status IN ('pending_approval', 'pending_review')
                OR support_chat_items_member_attention > 0 OR support_chat_items_mentions > 0)
            """), arguments: [groupMemberId]) ?? false
    }

    /// One more member to look at in the member's group (`increaseGroupMembersRequireAttention`).
    func increaseMembersRequireAttention(memberOf groupMemberId: Int64) throws {
        try cachedStatement(sql: """
            UPDATE groups SET members_require_attention = members_require_attention + 1
            WHERE group_id = (SELECT group_id FROM group_members WHERE group_member_id = ?)
            """).execute(arguments: [groupMemberId])
    }

    /// One fewer, never below 0 (`decreaseGroupMembersRequireAttention`).
    func decreaseMembersRequireAttention(memberOf groupMemberId: Int64) throws {
        try cachedStatement(sql: """
            UPDATE groups SET members_require_attention = max(0, members_require_attention - 1)
            WHERE group_id = (SELECT group_id FROM group_members WHERE group_member_id = ?)
            """).execute(arguments: [groupMemberId])
    }

    /// The counter follows the member's change (`updateGroupMembersRequireAttention`): up when it now
    /// needs attention and did not, down in the other case (only down when `downOnly`).
    func followRequiresAttention(_ groupMemberId: Int64, before: Bool, downOnly: Bool = false) throws {
        let after = try memberRequiresAttention(groupMemberId)
        if after && !before && !downOnly { try increaseMembersRequireAttention(memberOf: groupMemberId) }
        if before && !after { try decreaseMembersRequireAttention(memberOf: groupMemberId) }
    }

    /// Whether we have a ready connection with the member (simplex-chat `connReady` of `memberConn`).
    func memberHasReadyConnection(_ groupMemberId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: """
            SELECT 1 FROM connections WHERE group_member_id = ? AND conn_status = 'ready' LIMIT 1
            """), arguments: [groupMemberId]) ?? false
    }
}
