import GRDB

/// Queries about the device's users (simplex-chat Store/Profiles.hs user functions).
extension Database {
    func activeUserRecord() throws -> UserRecord? {
        try UserRecord.fetchOne(cachedStatement(sql: "SELECT * FROM users WHERE active_user = 1"))
    }

    func userRecords() throws -> [UserRecord] {
        try UserRecord.fetchAll(cachedStatement(sql: "SELECT * FROM users ORDER BY user_id"))
    }

    /// `preferences`: how the profile's preferences JSON is decoded (the controller's cache on hot paths).
    func userRecord(_ userId: Int64, preferences: (String) -> Preferences? = ChatController.decodePreferences) throws -> UserRecord? {
        try decodeFirst("SELECT * FROM users WHERE user_id = ?", [userId]) { r in UserRecord(row: r, preferences: preferences) }
    }

    func userNameExists(_ localDisplayName: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM users WHERE local_display_name = ?"), arguments: [localDisplayName]) == true
    }

    /// The order a user made active now gets (the most recent is the highest).
    func nextActiveOrder() throws -> Int64 {
        (try Int64.fetchOne(cachedStatement(sql: "SELECT max(active_order) FROM users")) ?? 0) + 1
    }

    func makeUserActive(_ userId: Int64, order: Int64) throws {
        try cachedStatement(sql: "UPDATE users SET active_user = (user_id = ?)").execute(arguments: [userId])
        try cachedStatement(sql: "UPDATE users SET active_order = ? WHERE user_id = ?").execute(arguments: [order, userId])
    }

    func setUserContactLink(_ userId: Int64, _ link: String?) throws {
        try cachedStatement(sql: "UPDATE users SET contact_link = ? WHERE user_id = ?").execute(arguments: [link, userId])
    }

    /// Everything of a user, its chats and connections (the agent connections are deleted by
    /// the caller first).
    func deleteUser(_ userId: Int64) throws {
        for sql in ["DELETE FROM chat_items WHERE user_id = ?", "DELETE FROM connections WHERE user_id = ?",
                    "DELETE FROM contact_requests WHERE user_id = ?", "DELETE FROM groups WHERE user_id = ?",
                    "DELETE FROM contacts WHERE user_id = ?", "DELETE FROM users WHERE user_id = ?"] {
            try cachedStatement(sql: sql).execute(arguments: [userId])
        }
    }

    /// Every agent connection of a user: contacts, members, its address and group links.
    func userAgentConnIds(_ userId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: """
            SELECT agent_conn_id FROM connections WHERE user_id = ?1
            UNION ALL SELECT agent_conn_id FROM user_contact_links WHERE user_id = ?1
            UNION ALL SELECT agent_conn_id FROM group_links WHERE user_id = ?1
            """), arguments: [userId])
    }

    /// The relays of a protocol the active user configured (enabled ones).
    func activeUserServers(protocol p: String) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: """
            SELECT server FROM smp_servers WHERE protocol = ? AND enabled = 1 AND user_id = (SELECT user_id FROM users WHERE active_user = 1)
            """), arguments: [p])
    }

    func userServerRows(_ userId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: "SELECT server_id, protocol, server, enabled FROM smp_servers WHERE user_id = ? ORDER BY server_id"),
                         arguments: [userId])
    }

    func replaceUserServers(_ userId: Int64, protocol p: String, _ servers: [String]) throws {
        try cachedStatement(sql: "DELETE FROM smp_servers WHERE user_id = ? AND protocol = ?").execute(arguments: [userId, p])
        for s in servers {
            try cachedStatement(sql: "INSERT INTO smp_servers (user_id, protocol, server) VALUES (?, ?, ?)").execute(arguments: [userId, p, s])
        }
    }

    func userAddressLink(_ userId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT conn_link FROM user_contact_links WHERE user_id = ?"), arguments: [userId])
    }
}
