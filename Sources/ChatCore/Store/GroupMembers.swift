import Foundation
import GRDB

/// Queries for groups as members see them arrive: invitations, memberships, member connections,
/// introductions and the state changes members announce (simplex-chat Store/Groups.hs
/// `createGroupInvitation`, `createNewGroupMember`, `updateGroupMemberStatus`, ...).
extension Database {
    // MARK: groups

    /// A group we were invited to or joined; returns its id.
    func insertGroup(userId: Int64, localDisplayName: String, profileJSON: String, viaGroupLinkURI: String? = nil,
                     viaGroupLinkId: String? = nil, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO groups (user_id, local_display_name, group_profile, via_group_link_uri, via_group_link_id, created_at, updated_at, chat_ts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, localDisplayName, profileJSON, viaGroupLinkURI, viaGroupLinkId, now, now, now])
        return lastInsertedRowID
    }

    /// A prepared group (from a link) becomes the group the host accepted us into: its profile,
    /// no pending link, and the placeholder membership removed (the real one replaces it).
    func completePreparedGroup(_ groupId: Int64, profileJSON: String, at now: Double) throws {
        try run("UPDATE groups SET group_profile = ?, prepared_conn_link = NULL, prepared_short_link = NULL, updated_at = ? WHERE group_id = ?",
                [profileJSON, now, groupId])
        try run("DELETE FROM group_members WHERE group_id = ? AND member_category = 'user'", [groupId])
    }

    func setGroupProfile(_ groupId: Int64, profileJSON: String, at now: Double) throws {
        try run("UPDATE groups SET group_profile = ?, updated_at = ? WHERE group_id = ?", [profileJSON, now, groupId])
    }

    // MARK: members

    /// A group member row; returns its id. `invitedByContactId`, `invitedByGroupMemberId`,
    /// `invitedByUser`, `contactId` and `invitationLink` as the member's origin has them.
    func insertGroupMember(groupId: Int64, userId: Int64, memberId: String, role: String, category: String, status: String,
                           localDisplayName: String, profileId: Int64?, contactId: Int64? = nil, invitedByContactId: Int64? = nil,
                           invitedByGroupMemberId: Int64? = nil, invitedByUser: Bool = false, invitationLink: String? = nil,
                           at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO group_members (group_id, user_id, member_id, member_role, member_category, member_status, local_display_name,
              member_profile_id, contact_id, invited_by_contact_id, invited_by_group_member_id, invited_by_user, inv_conn_req, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [groupId, userId, memberId, role, category, status, localDisplayName, profileId, contactId, invitedByContactId,
                  invitedByGroupMemberId, invitedByUser, invitationLink, now, now])
        return lastInsertedRowID
    }

    /// An `unknown` member (seen only as a forwarded author) once the host announces it.
    func setAnnouncedMember(_ groupMemberId: Int64, role: String, category: String, status: String, invitedBy: Int64, at now: Double) throws {
        try run("""
            UPDATE group_members SET member_role = ?, member_category = ?, member_status = ?, invited_by_group_member_id = ?, updated_at = ?
            WHERE group_member_id = ?
            """, [role, category, status, invitedBy, now, groupMemberId])
    }

    func setMemberStatus(_ groupMemberId: Int64, _ status: String, at now: Double) throws {
        try run("UPDATE group_members SET member_status = ?, updated_at = ? WHERE group_member_id = ?", [status, now, groupMemberId])
    }

    /// A member whose connection was accepted, unless it is already further along.
    func setMemberAccepted(_ groupMemberId: Int64, at now: Double) throws {
        try run("""
            UPDATE group_members SET member_status = 'accepted', updated_at = ?
            WHERE group_member_id = ? AND member_status IN ('invited', 'intro-inv', 'introduced', 'announced')
            """, [now, groupMemberId])
    }

    /// Our own membership's status in a group.
    func setMembershipStatus(groupId: Int64, _ status: String, at now: Double) throws {
        try run("UPDATE group_members SET member_status = ?, updated_at = ? WHERE group_id = ? AND member_category = 'user'", [status, now, groupId])
    }

    func setMemberRole(_ groupMemberId: Int64, _ role: String, at now: Double) throws {
        try run("UPDATE group_members SET member_role = ?, updated_at = ? WHERE group_member_id = ?", [role, now, groupMemberId])
    }

    func setMemberBlockedByAdmin(_ groupMemberId: Int64, _ blocked: Bool, at now: Double) throws {
        try run("UPDATE group_members SET blocked_by_admin = ?, updated_at = ? WHERE group_member_id = ?", [blocked, now, groupMemberId])
    }

    func memberProfileId(_ groupMemberId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT member_profile_id FROM group_members WHERE group_member_id = ?"), arguments: [groupMemberId])
    }

    /// A member that left or was removed: its status, and its connections forgotten.
    /// A member needing attention with a support chat stops counting (simplex-chat
    /// `deleteSupportChatIfExists` in `deleteOrUpdateMemberRecordIO` / `updateMemberRecordDeleted`).
    func closeMember(_ groupMemberId: Int64, status: String, at now: Double) throws {
        let hasSupportChat = try Bool.fetchOne(cachedStatement(sql: "SELECT support_chat_ts IS NOT NULL FROM group_members WHERE group_member_id = ?"),
                                               arguments: [groupMemberId]) ?? false
        if hasSupportChat, try memberRequiresAttention(groupMemberId) { try decreaseMembersRequireAttention(memberOf: groupMemberId) }
        try setMemberStatus(groupMemberId, status, at: now)
        try run("DELETE FROM connections WHERE group_member_id = ?", [groupMemberId])
    }

    // MARK: member connections

    /// A connection of ours to a group member; returns its id.
    func insertMemberConnection(userId: Int64, agentConnId: String, groupMemberId: Int64, status: String, initiated: Bool,
                                viaGroupLinkId: String? = nil, at now: Double) throws {
        try run("""
            INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, group_member_id, via_group_link_id, initiated, pq_support, created_at, updated_at)
            VALUES (?, ?, 'member', ?, ?, ?, ?, 0, ?, ?)
            """, [userId, agentConnId, status, groupMemberId, viaGroupLinkId, initiated, now, now])
    }

    /// A connection made through a group link becomes the host member's.
    func assignConnectionToMember(agentConnId: String, groupMemberId: Int64, at now: Double) throws {
        try run("UPDATE connections SET conn_type = 'member', group_member_id = ?, conn_status = 'accepted', updated_at = ? WHERE agent_conn_id = ?",
                [groupMemberId, now, agentConnId])
    }

    // MARK: introductions

    func insertIntroduction(reGroupMemberId: Int64, toGroupMemberId: Int64, at now: Double) throws {
        try run("INSERT OR IGNORE INTO group_member_intros (re_group_member_id, to_group_member_id, intro_status, created_at) VALUES (?, ?, 'new', ?)",
                [reGroupMemberId, toGroupMemberId, now])
    }

    func hasIntroduction(reGroupMemberId: Int64, toGroupMemberId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM group_member_intros WHERE re_group_member_id = ? AND to_group_member_id = ?"),
                          arguments: [reGroupMemberId, toGroupMemberId]) == true
    }

    func markIntroductionForwarded(reGroupMemberId: Int64, toGroupMemberId: Int64) throws {
        try run("UPDATE group_member_intros SET intro_status = 'fwd' WHERE re_group_member_id = ? AND to_group_member_id = ?",
                [reGroupMemberId, toGroupMemberId])
    }

    // MARK: items of group members

    /// Our own sent item in a group by shared message id.
    func sentGroupItemRow(_ groupId: Int64, sharedMsgId: String) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE group_id = ? AND item_sent = 1 AND shared_msg_id = ?"),
                         arguments: [groupId, sharedMsgId])
    }

    /// A member's item in a group by shared message id.
    func memberGroupItemRow(_ groupId: Int64, groupMemberId: Int64, sharedMsgId: String) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE group_id = ? AND group_member_id = ? AND shared_msg_id = ?"),
                         arguments: [groupId, groupMemberId, sharedMsgId])
    }

    /// A reaction of a member (`reactor`: its member id) to an item, added or taken back.
    func setMemberReaction(_ itemId: Int64, reactionJSON: String, reactor: String, add: Bool, at now: Double) throws {
        if add {
            try run("INSERT OR IGNORE INTO chat_item_reactions (chat_item_id, reaction, reaction_sent, reactor, created_at) VALUES (?, ?, 0, ?, ?)",
                    [itemId, reactionJSON, reactor, now])
        } else {
            try run("DELETE FROM chat_item_reactions WHERE chat_item_id = ? AND reaction = ? AND reaction_sent = 0 AND reactor = ?",
                    [itemId, reactionJSON, reactor])
        }
    }

    /// Every message we sent to a group, marked deleted (a moderator removed us with messages).
    func markSentGroupItemsDeleted(_ groupId: Int64, deletedJSON: String, at now: Double) throws {
        try run("UPDATE chat_items SET item_deleted = ?, updated_at = ? WHERE group_id = ? AND item_sent = 1 AND item_deleted IS NULL",
                [deletedJSON, now, groupId])
    }
}
