import Foundation
import GRDB

/// The rows GroupInfo and GroupMember are built from (simplex-chat Store/Groups.hs
/// `getGroupInfo`, `getGroupMember`): members with their profiles, memberships, counts.
extension Database {
    /// A member with its profile's columns (none for our membership without an incognito profile).
    private static let memberSelect = """
        SELECT m.*, p.profile_id, p.display_name, p.full_name, p.short_descr, p.image, p.contact_link, p.preferences, p.peer_type, p.local_alias
        FROM group_members m LEFT JOIN contact_profiles p ON p.profile_id = m.member_profile_id
        """

    func memberRow(groupMemberId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: Self.memberSelect + " WHERE m.group_member_id = ?"), arguments: [groupMemberId])
    }

    func memberRow(groupId: Int64, memberId: String) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: Self.memberSelect + " WHERE m.group_id = ? AND m.member_id = ?"), arguments: [groupId, memberId])
    }

    /// Our own membership's row in a group.
    func membershipRow(groupId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: Self.memberSelect + " WHERE m.group_id = ? AND m.member_category = 'user'"), arguments: [groupId])
    }

    /// The other members' rows, in the order they were added.
    func otherMemberRows(groupId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: Self.memberSelect + " WHERE m.group_id = ? AND m.member_category <> 'user' ORDER BY m.group_member_id"),
                         arguments: [groupId])
    }

    func userRow(_ userId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM users WHERE user_id = ?"), arguments: [userId])
    }

    /// A member's latest connection.
    func latestMemberConnectionRow(groupMemberId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM connections WHERE group_member_id = ? ORDER BY connection_id DESC LIMIT 1"),
                         arguments: [groupMemberId])
    }

    func groupRow(_ groupId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM groups WHERE group_id = ?"), arguments: [groupId])
    }

    /// Members (the user included) whose status is one of `currentStatuses`.
    func memberCount(groupId: Int64, currentStatuses: String) throws -> Int64 {
        try Int64.fetchOne(cachedStatement(sql: "SELECT count(*) FROM group_members WHERE group_id = ? AND member_status IN " + currentStatuses),
                           arguments: [groupId]) ?? 0
    }

    func groupNameUsed(userId: Int64, _ localDisplayName: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM groups WHERE user_id = ? AND local_display_name = ?"), arguments: [userId, localDisplayName]) == true
    }
}
