import Foundation
import GRDB

/// Member direct contacts (simplex-chat Store/Groups.hs `createMemberContact`,
/// `getMemberContact`, `setContactGrpInvSent`, `createMemberContactInvited`,
/// `resetMemberContactFields`, `setMemberContactStartedConnection`).
extension Database {
    /// A contact for group member `groupMemberId`, sharing its profile; the member gets it.
    func insertMemberContact(userId: Int64, localDisplayName: String, profileId: Int64, groupMemberId: Int64, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO contacts (user_id, local_display_name, profile_id, contact_used, contact_group_member_id, created_at, updated_at, chat_ts)
            VALUES (?, ?, ?, 1, ?, ?, ?, ?)
            """, [userId, localDisplayName, profileId, groupMemberId, now, now, now])
        let contactId = lastInsertedRowID
        try run("UPDATE group_members SET contact_id = ?, updated_at = ? WHERE group_member_id = ?", [contactId, now, groupMemberId])
        return contactId
    }

    /// A contact for a member who sent us x.grp.direct.inv, keeping its link until we accept.
    func insertInvitedMemberContact(userId: Int64, localDisplayName: String, profileId: Int64, link: String, groupId: Int64,
                                    groupMemberId: Int64, memberConnId: Int64?, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO contacts (user_id, local_display_name, profile_id, contact_used, grp_direct_inv_link, grp_direct_inv_from_group_id,
              grp_direct_inv_from_group_member_id, grp_direct_inv_from_member_conn_id, created_at, updated_at, chat_ts)
            VALUES (?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, localDisplayName, profileId, link, groupId, groupMemberId, memberConnId, now, now, now])
        let contactId = lastInsertedRowID
        try run("UPDATE group_members SET contact_id = ?, updated_at = ? WHERE group_member_id = ?", [contactId, now, groupMemberId])
        return contactId
    }

    /// A new x.grp.direct.inv for a contact we have: the link to accept replaces any earlier one.
    func setMemberContactInvitation(_ contactId: Int64, link: String, groupId: Int64, groupMemberId: Int64, memberConnId: Int64?,
                                    at now: Double) throws {
        try run("""
            UPDATE contacts SET grp_direct_inv_link = ?, grp_direct_inv_from_group_id = ?, grp_direct_inv_from_group_member_id = ?,
              grp_direct_inv_from_member_conn_id = ?, grp_direct_inv_started_connection = 0, contact_status = 'active',
              contact_group_member_id = NULL, contact_grp_inv_sent = 0, updated_at = ?
            WHERE contact_id = ?
            """, [link, groupId, groupMemberId, memberConnId, now, contactId])
    }

    func setUserAutoAcceptMemberContacts(_ userId: Int64, _ on: Bool) throws {
        try run("UPDATE users SET auto_accept_member_contacts = ? WHERE user_id = ?", [on, userId])
    }

    func setContactGrpInvSent(_ contactId: Int64, _ sent: Bool, at now: Double) throws {
        try run("UPDATE contacts SET contact_grp_inv_sent = ?, updated_at = ? WHERE contact_id = ?", [sent, now, contactId])
    }

    func setMemberContactStartedConnection(_ contactId: Int64, at now: Double) throws {
        try run("UPDATE contacts SET grp_direct_inv_started_connection = 1, updated_at = ? WHERE contact_id = ?", [now, contactId])
    }

    /// Once the member joined our link, the contact is an ordinary one (`resetMemberContactFields`).
    func resetMemberContactFields(_ contactId: Int64, at now: Double) throws {
        try run("""
            UPDATE contacts SET contact_group_member_id = NULL, contact_grp_inv_sent = 0, updated_at = ?
            WHERE contact_id = ? AND (contact_group_member_id IS NOT NULL OR contact_grp_inv_sent = 1)
            """, [now, contactId])
    }

    /// The invitation link of a contact's latest connection (`conn_req_inv`).
    func contactInvitationLink(_ contactId: Int64) throws -> String? {
        try String.fetchOne(self, sql: "SELECT conn_link_inv FROM connections WHERE contact_id = ? ORDER BY connection_id DESC LIMIT 1",
                            arguments: [contactId])
    }

    /// Our incognito profile in a group, if we joined it with one.
    func membershipIncognitoProfileId(groupId: Int64) throws -> Int64? {
        try Int64.fetchOne(self, sql: "SELECT member_profile_id FROM group_members WHERE group_id = ? AND member_category = 'user'",
                           arguments: [groupId])
    }

    /// The id of a member's latest connection.
    func memberConnectionId(groupMemberId: Int64) throws -> Int64? {
        try Int64.fetchOne(self, sql: "SELECT connection_id FROM connections WHERE group_member_id = ? ORDER BY connection_id DESC LIMIT 1",
                           arguments: [groupMemberId])
    }
}
