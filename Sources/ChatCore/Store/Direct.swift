import GRDB

/// Queries about contacts and their connections (simplex-chat Store/Direct.hs), named for what
/// they do. Controller code calls these instead of writing SQL.
extension Database {
    func contactUserId(_ contactId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT user_id FROM contacts WHERE contact_id = ?"), arguments: [contactId])
    }

    /// Every agent connection of a contact (the current one and any older ones).
    func contactAgentConnIds(_ contactId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: "SELECT agent_conn_id FROM connections WHERE contact_id = ?"), arguments: [contactId])
    }

    /// `/_delete @id messages`: the items go, the contact stays, hidden from the chat list
    /// until its next message (simplex-chat `deleteContactCIs` + `setContactChatDeleted`).
    func clearContactChat(_ contactId: Int64, at now: Double) throws {
        try cachedStatement(sql: "DELETE FROM chat_items WHERE contact_id = ?").execute(arguments: [contactId])
        try cachedStatement(sql: "UPDATE contacts SET chat_deleted = 1, updated_at = ? WHERE contact_id = ?").execute(arguments: [now, contactId])
    }

    /// `/_delete @id entity`: the connections go, the chat stays with the contact marked
    /// deleted by the user.
    func markContactDeletedByUser(_ contactId: Int64, at now: Double) throws {
        try cachedStatement(sql: "DELETE FROM connections WHERE contact_id = ?").execute(arguments: [contactId])
        try cachedStatement(sql: "UPDATE contacts SET contact_status = 'deletedByUser', updated_at = ? WHERE contact_id = ?").execute(arguments: [now, contactId])
    }

    /// The contact, its chat items and connections (cascade).
    func deleteContact(_ contactId: Int64) throws {
        try cachedStatement(sql: "DELETE FROM contacts WHERE contact_id = ?").execute(arguments: [contactId])
    }

    /// A new item makes a cleared chat visible again.
    func contactChatUsed(_ contactId: Int64, at now: Double) throws {
        try cachedStatement(sql: "UPDATE contacts SET chat_ts = ?, chat_deleted = 0 WHERE contact_id = ?").execute(arguments: [now, contactId])
    }

    func setContactCustomData(_ contactId: Int64, _ json: String?) throws -> Bool {
        try cachedStatement(sql: "UPDATE contacts SET custom_data = ? WHERE contact_id = ?").execute(arguments: [json, contactId])
        return changesCount > 0
    }

    /// A connection not (yet) bound to a contact or member: an invitation we made or a link we joined.
    func pendingConnectionRow(_ connId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT * FROM connections WHERE connection_id = ? AND contact_id IS NULL AND group_member_id IS NULL AND conn_type = 'contact'
            """), arguments: [connId])
    }

    func deleteConnection(_ connId: Int64) throws {
        try cachedStatement(sql: "DELETE FROM connections WHERE connection_id = ?").execute(arguments: [connId])
    }

    /// What the connection handshake told us about the peer: its chat version range.
    func setPeerChatVersionRange(agentConnId: String, min: Int, max: Int) throws {
        try cachedStatement(sql: "UPDATE connections SET peer_chat_min_version = ?, peer_chat_max_version = ? WHERE agent_conn_id = ?")
            .execute(arguments: [min, max, agentConnId])
    }

    /// Whether the connection's ratchet uses post-quantum keys (the agent's CON / MSG say).
    func setConnectionPQEncryption(agentConnId: String, _ on: Bool) throws {
        try cachedStatement(sql: "UPDATE connections SET pq_encryption = ? WHERE agent_conn_id = ? AND pq_encryption <> ?")
            .execute(arguments: [on, agentConnId, on])
    }
}

extension Database {
    /// `/_delete #id messages`: the group's items go, the group stays.
    func clearGroupChat(_ groupId: Int64) throws {
        try cachedStatement(sql: "DELETE FROM chat_items WHERE group_id = ?").execute(arguments: [groupId])
    }

    func groupUserId(_ groupId: Int64) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT user_id FROM groups WHERE group_id = ?"), arguments: [groupId])
    }

    func setGroupCustomData(_ groupId: Int64, _ json: String?) throws -> Bool {
        try cachedStatement(sql: "UPDATE groups SET custom_data = ? WHERE group_id = ?").execute(arguments: [json, groupId])
        return changesCount > 0
    }
}
