import Foundation
import GRDB

/// Queries for prepared chats: contacts and groups made from a link's data before anything goes
/// on the network, and the connections that then start them (simplex-chat Store/Direct.hs
/// `createPreparedContact`, Store/Groups.hs `createPreparedGroup`, `updatePreparedGroupUser`).
extension Database {
    /// A contact from a link's data; returns its id.
    func insertPreparedContact(userId: Int64, localDisplayName: String, profileId: Int64, connLink: String, shortLink: String?,
                               linkMode: String, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO contacts (user_id, local_display_name, profile_id, prepared_conn_link, prepared_short_link, prepared_link_mode,
              created_at, updated_at, chat_ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, localDisplayName, profileId, connLink, shortLink, linkMode, now, now, now])
        return lastInsertedRowID
    }

    /// A group from a link's data, with our placeholder membership (member ID and role come
    /// from the host); returns the group's id.
    func insertPreparedGroup(userId: Int64, localDisplayName: String, profileJSON: String, connLink: String, groupLinkId: String?,
                             shortLink: String?, memberId: String, membershipName: String, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO groups (user_id, local_display_name, group_profile, via_group_link_uri, via_group_link_id, prepared_conn_link,
              prepared_short_link, created_at, updated_at, chat_ts)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, localDisplayName, profileJSON, connLink, groupLinkId, connLink, shortLink, now, now, now])
        let groupId = lastInsertedRowID
        try run("""
            INSERT INTO group_members (group_id, user_id, member_id, member_role, member_category, member_status, local_display_name,
              created_at, updated_at)
            VALUES (?, ?, ?, 'member', 'user', 'unknown', ?, ?, ?)
            """, [groupId, userId, memberId, membershipName, now, now])
        return groupId
    }

    /// The greeting a link carries, as the peer's first (received, unread) message of the
    /// contact's or the group's chat.
    func insertLinkWelcomeItem(userId: Int64, contactId: Int64? = nil, groupId: Int64? = nil, text: String, contentJSON: String,
                               statusJSON: String, sharedMsgId: String? = nil, at now: Double) throws {
        try run("""
            INSERT INTO chat_items (user_id, contact_id, group_id, item_sent, item_ts, item_text, item_content, item_status, shared_msg_id,
              created_at, updated_at)
            VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, contactId, groupId, now, text, contentJSON, statusJSON, sharedMsgId, now, now])
    }

    /// Every item of a contact's chat, oldest first (a prepared chat has only a few).
    func allContactItemRows(_ contactId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? ORDER BY chat_item_id"), arguments: [contactId])
    }

    /// Every item of a group's chat, oldest first.
    func allGroupItemRows(_ groupId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: "SELECT * FROM chat_items WHERE group_id = ? ORDER BY chat_item_id"), arguments: [groupId])
    }

    /// The connection a prepared contact starts with its link (joined; a request when the link
    /// is an address).
    func insertPreparedContactConnection(userId: Int64, agentConnId: String, viaContactURI: Bool, viaLink: String, customProfileId: Int64?,
                                         contactId: Int64, at now: Double) throws {
        try run("""
            INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, via_contact_uri, via_link, custom_user_profile_id, contact_id,
              initiated, created_at, updated_at) VALUES (?, ?, 'contact', 'joined', ?, ?, ?, ?, 1, ?, ?)
            """, [userId, agentConnId, viaContactURI, viaLink, customProfileId, contactId, now, now])
        try run("UPDATE contacts SET contact_used = 1, updated_at = ? WHERE contact_id = ?", [now, contactId])
    }

    /// The message that went with a request through a prepared contact's address link.
    func insertRequestMessageItem(userId: Int64, contactId: Int64, text: String, contentJSON: String, statusJSON: String, sharedMsgId: String,
                                  at now: Double) throws {
        try run("""
            INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, shared_msg_id, created_at, updated_at)
            VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, contactId, now, text, contentJSON, statusJSON, sharedMsgId, now, now])
        try run("UPDATE contacts SET chat_ts = ? WHERE contact_id = ?", [now, contactId])
    }

    /// The connection a prepared group starts through its link; the group is marked started and
    /// our membership takes the incognito profile, if any.
    func startPreparedGroup(_ groupId: Int64, userId: Int64, agentConnId: String, viaLink: String, groupLinkId: String?,
                            customProfileId: Int64?, at now: Double) throws {
        try run("""
            INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, via_contact_uri, via_link, via_group_link_id, prepared_group_id,
              custom_user_profile_id, initiated, created_at, updated_at)
            VALUES (?, ?, 'contact', 'joined', 1, ?, ?, ?, ?, 1, ?, ?)
            """, [userId, agentConnId, viaLink, groupLinkId, groupId, customProfileId, now, now])
        try run("UPDATE groups SET prepared_started = 1, updated_at = ? WHERE group_id = ?", [now, groupId])
        try run("UPDATE group_members SET member_profile_id = ? WHERE group_id = ? AND member_category = 'user'", [customProfileId, groupId])
    }
}
