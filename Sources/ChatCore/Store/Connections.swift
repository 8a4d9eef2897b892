import GRDB
import SimplexStore

/// Connections, addresses and contact requests as the agent's events need them (simplex-chat
/// Store/Connections.hs, Store/Direct.hs).
extension Database {
    func connectionRow(agentConnId: String) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM connections WHERE agent_conn_id = ?"), arguments: [agentConnId])
    }

    func setConnectionStatus(agentConnId: String, _ status: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE connections SET conn_status = ?, updated_at = ? WHERE agent_conn_id = ?").execute(arguments: [status, now, agentConnId])
    }

    /// CON: the connection is ready, the chat starts, and a prepared contact becomes ordinary.
    func contactConnected(_ contactId: Int64, agentConnId: String, at now: Double) throws {
        try setConnectionStatus(agentConnId: agentConnId, "ready", at: now)
        try contactChatUsed(contactId, at: now)
        try cachedStatement(sql: """
            UPDATE contacts SET prepared_conn_link = NULL, prepared_short_link = NULL, prepared_link_mode = NULL WHERE contact_id = ?
            """).execute(arguments: [contactId])
    }

    func userContactLinkRow(id: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM user_contact_links WHERE user_contact_link_id = ?"), arguments: [id])
    }

    func userContactLinkRow(agentConnId: String) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM user_contact_links WHERE agent_conn_id = ?"), arguments: [agentConnId])
    }

    func groupLinkRow(agentConnId: String) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM group_links WHERE agent_conn_id = ?"), arguments: [agentConnId])
    }

    /// A new contact; returns its id.
    func insertContact(userId: Int64, localDisplayName: String, profileId: Int64, at now: Double) throws -> Int64 {
        try cachedStatement(sql: "INSERT INTO contacts (user_id, local_display_name, profile_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [userId, localDisplayName, profileId, now, now])
        return lastInsertedRowID
    }

    func bindConnection(_ connectionId: Int64, toContact contactId: Int64, status: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE connections SET contact_id = ?, conn_status = ?, updated_at = ? WHERE connection_id = ?")
            .execute(arguments: [contactId, status, now, connectionId])
    }

    /// x.direct.del: the peer deleted us; the contact stays, marked deleted.
    func markContactDeletedByPeer(_ contactId: Int64, at now: Double) throws {
        try cachedStatement(sql: "UPDATE contacts SET contact_status = 'deleted', updated_at = ? WHERE contact_id = ?").execute(arguments: [now, contactId])
        try cachedStatement(sql: "UPDATE connections SET conn_status = 'deleted' WHERE contact_id = ?").execute(arguments: [contactId])
    }

    /// An item of a contact's chat by shared message id; `sent` nil matches either direction.
    func contactItemRow(_ contactId: Int64, sharedMsgId: String, sent: Bool?) throws -> Row? {
        if let sent {
            return try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? AND shared_msg_id = ? AND item_sent = ?"),
                                    arguments: [contactId, sharedMsgId, sent])
        }
        return try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? AND shared_msg_id = ?"), arguments: [contactId, sharedMsgId])
    }

    /// The sent direct items an agent report (SENT, RCVD, MERR) is about, several when they went
    /// in one batch: `(itemId, contactId, userId)`.
    func sentContactItems(agentConnId: String, agentMsgId: Int64) throws -> [(Int64, Int64, Int64, String)] {
        // Decoded in place (no GRDB `Row` per item): two of these run for every sent message.
        try allRows(cachedStatement(sql: """
            SELECT ci.chat_item_id, ci.contact_id, ci.user_id, ci.item_status FROM chat_items ci JOIN connections c ON c.contact_id = ci.contact_id
            WHERE c.agent_conn_id = ? AND ci.agent_msg_id = ? AND ci.item_sent = 1 ORDER BY ci.chat_item_id
            """), [agentConnId, agentMsgId]) { r in (r[0], r[1], r[2], r[3]) }
    }

    /// Timed items whose time has come: `(itemId, contactId, groupId, userId)`.
    func dueTimedItems(at now: Double) throws -> [(Int64, Int64?, Int64?, Int64)] {
        try Row.fetchAll(cachedStatement(sql: "SELECT chat_item_id, contact_id, group_id, user_id FROM chat_items WHERE timed_delete_at <= ?"),
                         arguments: [now]).map { ($0[0], $0[1], $0[2], $0[3]) }
    }
}

/// The user's contact address (simplex-chat Store/Profiles.hs user contact link functions).
extension Database {
    func userContactLinkRow(userId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM user_contact_links WHERE user_id = ?"), arguments: [userId])
    }

    func insertUserContactLink(userId: Int64, agentConnId: String, link: String, shortLink: String?, pqSupport: Bool?, at now: Double) throws {
        try cachedStatement(sql: "INSERT INTO user_contact_links (user_id, agent_conn_id, conn_link, short_link, pq_support, created_at) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [userId, agentConnId, link, shortLink, pqSupport, now])
    }

    func setAddressSettings(userId: Int64, _ settingsJSON: String, pqSupport: Bool?) throws {
        try cachedStatement(sql: "UPDATE user_contact_links SET address_settings = ? WHERE user_id = ?").execute(arguments: [settingsJSON, userId])
        if let pqSupport {
            try cachedStatement(sql: "UPDATE user_contact_links SET pq_support = ? WHERE user_id = ?").execute(arguments: [pqSupport, userId])
        }
    }

    func deleteUserContactLink(userId: Int64) throws {
        try cachedStatement(sql: "DELETE FROM user_contact_links WHERE user_id = ?").execute(arguments: [userId])
    }

    /// The address's `pq_ratchet` setting, when one was given.
    func addressPQSupport(userContactLinkId: Int64?) throws -> Bool? {
        try Bool.fetchOne(cachedStatement(sql: "SELECT pq_support FROM user_contact_links WHERE user_contact_link_id = ?"), arguments: [userContactLinkId])
    }

    /// A random profile for an incognito connection; returns its id.
    func insertIncognitoProfile(userId: Int64, displayName: String, at now: Double) throws -> Int64 {
        try cachedStatement(sql: "INSERT INTO contact_profiles (user_id, display_name, full_name, incognito, created_at) VALUES (?, ?, '', 1, ?)")
            .execute(arguments: [userId, displayName, now])
        return lastInsertedRowID
    }

    func contactProfileRow(_ profileId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM contact_profiles WHERE profile_id = ?"), arguments: [profileId])
    }

    func setContactUserPreferences(_ contactId: Int64, _ json: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE contacts SET user_preferences = ?, updated_at = ? WHERE contact_id = ?").execute(arguments: [json, now, contactId])
    }

    func connectionIncognitoProfileId(agentConnId: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT custom_user_profile_id FROM connections WHERE agent_conn_id = ?"), arguments: [agentConnId])
    }
}

extension Database {
    /// A contact request as received at an address; its row id.
    func insertContactRequest(userId: Int64, linkId: Int64, invitationId: String, profileId: Int64, localDisplayName: String,
                              requestMsgId: String?, requestContent: String?, peerVRange: (UInt16, UInt16)?, at now: Double) throws -> Int64 {
        try cachedStatement(sql: """
            INSERT INTO contact_requests (user_id, user_contact_link_id, agent_invitation_id, profile_id, local_display_name,
              request_msg_id, request_msg_content, peer_chat_min_version, peer_chat_max_version, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [userId, linkId, invitationId, profileId, localDisplayName, requestMsgId, requestContent,
                                     peerVRange.map { Int($0.0) }, peerVRange.map { Int($0.1) }, now, now])
        return lastInsertedRowID
    }

    /// A contact request with the requester's profile.
    func contactRequestRow(_ id: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT r.*, p.display_name, p.full_name, p.short_descr, p.image, p.contact_link, p.preferences, p.peer_type FROM contact_requests r
            JOIN contact_profiles p ON p.profile_id = r.profile_id WHERE r.contact_request_id = ?
            """), arguments: [id])
    }

    /// Ready contact connections that show the user's main profile (not an incognito one).
    func readyContactConnIdsWithMainProfile(userId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: """
            SELECT agent_conn_id FROM connections WHERE user_id = ? AND conn_status = 'ready' AND contact_id IS NOT NULL
            AND custom_user_profile_id IS NULL
            """), arguments: [userId])
    }

    /// The agent connection of the user's address when it has a short link.
    func addressConnIdWithShortLink(userId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT agent_conn_id FROM user_contact_links WHERE user_id = ? AND short_link IS NOT NULL"),
                            arguments: [userId])
    }
}
