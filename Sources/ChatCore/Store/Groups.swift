import Foundation
import GRDB

/// Queries for the groups we manage: creating, inviting, joining, leaving and deleting, and
/// group links (simplex-chat Store/Groups.hs `createNewGroup`, `createNewContactMemberAsync`,
/// `deleteGroup`, `createGroupLink`, ...).
extension Database {
    /// A user's groups by id, optionally those a contact is in and those whose name contains `search`.
    func groupIds(userId: Int64, withContact contactId: Int64?, search: String?) throws -> [Int64] {
        var sql = "SELECT g.group_id FROM groups g WHERE g.user_id = ?"
        var args: StatementArguments = [userId]
        if let contactId {
            sql += " AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = g.group_id AND m.contact_id = ?)"
            _ = args.append(contentsOf: [contactId])
        }
        if let search, !search.isEmpty {
            sql += " AND g.local_display_name LIKE ?"
            _ = args.append(contentsOf: ["%\(search)%"])
        }
        return try Int64.fetchAll(cachedStatement(sql: sql + " ORDER BY g.group_id"), arguments: args)
    }

    /// Our membership in a group is incognito (another profile than the user's).
    func isMembershipIncognito(groupId: Int64) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM group_members WHERE group_id = ? AND member_category = 'user' AND member_profile_id IS NOT NULL"),
                          arguments: [groupId]) == true
    }

    /// The contact's member row in a group, unless it is no longer a member (simplex-chat `contactMember`).
    func activeMemberRow(groupId: Int64, contactId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT * FROM group_members WHERE group_id = ? AND contact_id = ? AND member_category != 'user'
              AND member_status NOT IN ('rejected','removed','left','deleted')
            """), arguments: [groupId, contactId])
    }

    /// The group we were invited to with this link before (simplex-chat `getInvitationGroupId_`).
    func groupIdInvitedWith(userId: Int64, link: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: """
            SELECT group_id FROM group_members WHERE user_id = ? AND member_category = 'host' AND inv_conn_req = ? LIMIT 1
            """), arguments: [userId, link])
    }

    /// Our membership as a repeated invitation names it (member ID and role).
    func updateInvitedMembership(_ groupMemberId: Int64, memberId: String, role: String, at now: Double) throws {
        try run("UPDATE group_members SET member_id = ?, member_role = ?, updated_at = ? WHERE group_member_id = ?",
                [memberId, role, now, groupMemberId])
    }

    func deleteGroupMember(_ groupMemberId: Int64) throws {
        try run("DELETE FROM group_members WHERE group_member_id = ?", [groupMemberId])
    }

    /// The host member's row of a group we were invited to.
    func groupHostRow(groupId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM group_members WHERE group_id = ? AND member_category = 'host'"), arguments: [groupId])
    }

    /// The contact that invited us to a group (its host), if any.
    func groupHostContactId(groupId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT contact_id FROM group_members WHERE group_id = ? AND member_category = 'host'"), arguments: [groupId])
    }

    /// We accepted an invitation: our membership and the host's are accepted.
    func acceptGroupInvitation(groupId: Int64, at now: Double) throws {
        try run("UPDATE group_members SET member_status = 'accepted', updated_at = ? WHERE group_id = ? AND member_category IN ('user', 'host')", [now, groupId])
    }

    func setMemberShowMessages(_ groupMemberId: Int64, _ show: Bool, at now: Double) throws {
        try run("UPDATE group_members SET show_messages = ?, updated_at = ? WHERE group_member_id = ?", [show, now, groupMemberId])
    }

    func memberConnectionIds(groupMemberId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: "SELECT agent_conn_id FROM connections WHERE group_member_id = ?"), arguments: [groupMemberId])
    }

    /// Every agent connection of a group: its members' and its link's.
    func groupAgentConnIds(groupId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: """
            SELECT c.agent_conn_id FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id WHERE m.group_id = ?
            UNION ALL SELECT agent_conn_id FROM group_links WHERE group_id = ?
            """), arguments: [groupId, groupId])
    }

    /// Forgets a group's member connections and its link.
    func deleteGroupConnections(groupId: Int64) throws {
        try run("DELETE FROM connections WHERE group_member_id IN (SELECT group_member_id FROM group_members WHERE group_id = ?)", [groupId])
        try deleteGroupLink(groupId: groupId)
    }

    /// A group and its chat.
    func deleteGroupWithItems(_ groupId: Int64) throws {
        try run("DELETE FROM chat_items WHERE group_id = ?", [groupId])
        try run("DELETE FROM groups WHERE group_id = ?", [groupId])
    }

    func setGroupProfile(_ groupId: Int64, profileJSON: String, localDisplayName: String, at now: Double) throws {
        try run("UPDATE groups SET group_profile = ?, local_display_name = ?, updated_at = ? WHERE group_id = ?", [profileJSON, localDisplayName, now, groupId])
    }

    // MARK: group links

    func groupLinkRow(groupId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM group_links WHERE group_id = ?"), arguments: [groupId])
    }

    func insertGroupLink(groupId: Int64, userId: Int64, agentConnId: String, connLink: String, shortLink: String?, groupLinkId: String,
                         role: String, at now: Double) throws {
        try run("""
            INSERT INTO group_links (group_id, user_id, agent_conn_id, conn_link, short_link, group_link_id, member_role, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, [groupId, userId, agentConnId, connLink, shortLink, groupLinkId, role, now])
    }

    func setGroupLinkRole(groupId: Int64, _ role: String) throws {
        try run("UPDATE group_links SET member_role = ? WHERE group_id = ?", [role, groupId])
    }

    func deleteGroupLink(groupId: Int64) throws {
        try run("DELETE FROM group_links WHERE group_id = ?", [groupId])
    }
}
