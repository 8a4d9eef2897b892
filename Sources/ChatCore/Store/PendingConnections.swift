import Foundation
import GRDB

/// Queries for connections before they are contacts (invitations we made, links we joined),
/// contact requests to our address, and local aliases (simplex-chat Store/Direct.hs
/// `createDirectConnection`, `createConnReqConnection`, `createAcceptedContact`, ...).
extension Database {
    func connectionRow(connectionId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM connections WHERE connection_id = ?"), arguments: [connectionId])
    }

    /// Our one-time invitation (new); returns its row.
    func insertInvitationConnection(userId: Int64, agentConnId: String, link: String, shortLink: String?, customProfileId: Int64?,
                                    at now: Double) throws -> Row? {
        try run("""
            INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, conn_link_inv, short_link_inv, custom_user_profile_id, initiated,
              created_at, updated_at)
            VALUES (?, ?, 'contact', 'new', ?, ?, ?, 1, ?, ?)
            """, [userId, agentConnId, link, shortLink, customProfileId, now, now])
        return try connectionRow(connectionId: lastInsertedRowID)
    }

    /// A link we joined (an invitation, an address or a group link); returns its row.
    func insertJoinedConnection(userId: Int64, agentConnId: String, viaContactURI: Bool, viaLink: String, groupLinkId: String?,
                                customProfileId: Int64?, at now: Double) throws -> Row? {
        try run("""
            INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, via_contact_uri, via_link, via_group_link_id,
              custom_user_profile_id, initiated, created_at, updated_at)
            VALUES (?, ?, 'contact', 'joined', ?, ?, ?, ?, 1, ?, ?)
            """, [userId, agentConnId, viaContactURI, viaLink, groupLinkId, customProfileId, now, now])
        return try connectionRow(connectionId: lastInsertedRowID)
    }

    /// A connection of ours not bound to a contact (any type), as aliases and incognito see it.
    func unboundConnectionRow(_ connectionId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM connections WHERE connection_id = ? AND contact_id IS NULL"), arguments: [connectionId])
    }

    func setConnectionCustomProfile(_ connectionId: Int64, _ profileId: Int64?, at now: Double) throws {
        try run("UPDATE connections SET custom_user_profile_id = ?, updated_at = ? WHERE connection_id = ?", [profileId, now, connectionId])
    }

    func setPendingConnectionAlias(_ connectionId: Int64, _ alias: String, at now: Double) throws {
        try run("UPDATE connections SET local_alias = ?, updated_at = ? WHERE connection_id = ? AND contact_id IS NULL", [alias, now, connectionId])
    }

    func setContactAlias(_ contactId: Int64, _ alias: String) throws {
        try run("UPDATE contact_profiles SET local_alias = ? WHERE profile_id = (SELECT profile_id FROM contacts WHERE contact_id = ?)", [alias, contactId])
    }

    func contactNameUsed(userId: Int64, _ localDisplayName: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM contacts WHERE user_id = ? AND local_display_name = ?"), arguments: [userId, localDisplayName]) == true
    }

    // MARK: contact requests

    func contactRequestUserId(_ requestId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT user_id FROM contact_requests WHERE contact_request_id = ?"), arguments: [requestId])
    }

    func deleteContactRequest(_ requestId: Int64) throws {
        try run("DELETE FROM contact_requests WHERE contact_request_id = ?", [requestId])
    }

    /// The message that came with a request: its shared id and content (JSON), if any.
    func contactRequestMessage(_ requestId: Int64) throws -> (sharedMsgId: String?, contentJSON: String?)? {
        guard let r = try Row.fetchOne(cachedStatement(sql: "SELECT request_msg_id, request_msg_content FROM contact_requests WHERE contact_request_id = ?"),
                                       arguments: [requestId]) else { return nil }
        return (r["request_msg_id"], r["request_msg_content"])
    }

    /// The contact an accepted request becomes, with its accepted connection; returns the contact's id.
    func insertAcceptedContact(userId: Int64, localDisplayName: String, profileId: Int64, requestId: Int64, agentConnId: String,
                               userContactLinkId: Int64?, customProfileId: Int64?, peerMinVersion: Int?, peerMaxVersion: Int?,
                               pqSupport: Bool, at now: Double) throws -> Int64 {
        try run("""
            INSERT INTO contacts (user_id, local_display_name, profile_id, contact_request_id, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, [userId, localDisplayName, profileId, requestId, now, now])
        let contactId = lastInsertedRowID
        try run("""
            INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, contact_id, user_contact_link_id, custom_user_profile_id,
              peer_chat_min_version, peer_chat_max_version, pq_support, created_at, updated_at)
            VALUES (?, ?, 'contact', 'accepted', ?, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, agentConnId, contactId, userContactLinkId, customProfileId, peerMinVersion, peerMaxVersion, pqSupport, now, now])
        return contactId
    }

    /// The request's message as the first (received) message of the new contact's chat.
    func insertRequestMessageReceived(userId: Int64, contactId: Int64, text: String, contentJSON: String, statusJSON: String,
                                      sharedMsgId: String?, at now: Double) throws {
        try run("""
            INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, shared_msg_id, created_at, updated_at)
            VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
            """, [userId, contactId, now, text, contentJSON, statusJSON, sharedMsgId, now, now])
        try run("UPDATE contacts SET chat_ts = ? WHERE contact_id = ?", [now, contactId])
    }
}
