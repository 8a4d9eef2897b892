import Foundation
import GRDB
import SMPTransport

/// Chat profiles of this device (`/_create user`, `/user`, `/users`, `/_user`).
extension ChatController {
    func activeUser() throws(ChatError) -> User {
        guard let u = try store.read({ db in try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE active_user = 1")) }) else {
            throw .error(errorType: .noActiveUser)
        }
        return Self.user(u)
    }

    func users() throws(ChatError) -> [User] {
        try store.read { db in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM users ORDER BY user_id")) }.map(Self.user)
    }

    func createUser(_ new: NewUser) throws(ChatError) -> User {
        guard let profile = new.profile else {
            throw .error(errorType: .commandError(message: "a profile is required"))
        }
        let valid = Self.validDisplayName(profile.displayName)
        guard !valid.isEmpty, valid == profile.displayName else {
            throw .error(errorType: .invalidDisplayName(displayName: profile.displayName, validName: valid))
        }
        let row = try store.write { db -> Row? in
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE local_display_name = ?"), arguments: [valid]) == true {
                throw ChatError.error(errorType: .userExists(contactName: valid))
            }
            let order = (try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(active_order) FROM users")) ?? 0) + 1
            try db.execute(sql: "UPDATE users SET active_user = 0")
            try db.run("""
                INSERT INTO users (local_display_name, display_name, full_name, image, profile_id, active_user, active_order, created_at)
                VALUES (?, ?, ?, ?, 0, 1, ?, ?)
                """, [valid, profile.displayName, profile.fullName, profile.image, order, Date().timeIntervalSince1970])
            let id = db.lastInsertedRowID
            try db.run("UPDATE users SET profile_id = ? WHERE user_id = ?", [id, id])
            return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE user_id = ?"), arguments: [id])
        }
        guard let row else { throw .error(errorType: .internalError(message: "user not stored")) }
        return Self.user(row)
    }

    func setActiveUser(_ userId: Int64) throws(ChatError) -> User {
        let row = try store.write { db -> Row? in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM users WHERE user_id = ?"), arguments: [userId]) == true else {
                throw ChatError.errorStore(storeError: .userNotFound(userId: userId))
            }
            let order = (try Int64.fetchOne(db.cachedStatement(sql: "SELECT max(active_order) FROM users")) ?? 0) + 1
            try db.run("UPDATE users SET active_user = (user_id = ?)", [userId])
            try db.run("UPDATE users SET active_order = ? WHERE user_id = ?", [order, userId])
            return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE user_id = ?"), arguments: [userId])
        }
        guard let row else { throw .errorStore(storeError: .userNotFound(userId: userId)) }
        return Self.user(row)
    }

    static func user(_ r: Row) -> User {
        let id: Int64 = r["user_id"]
        let profile = Profile(displayName: r["display_name"], fullName: r["full_name"], image: r["image"], contactLink: r["contact_link"])
        return User(userId: id, agentUserId: id, userContactId: id, localDisplayName: r["local_display_name"],
                    profile: LocalProfile(profileId: r["profile_id"], profile: profile), activeUser: r["active_user"],
                    activeOrder: r["active_order"])
    }

    /// simplex-chat's rule for display names: no leading '@'/'#', no leading, trailing or
    /// repeated whitespace, no control characters. Returns the valid form of `name`.
    static func validDisplayName(_ name: String) -> String {
        var s = Substring(name)
        while let c = s.first, c == "@" || c == "#" || c.isWhitespace { s = s.dropFirst() }
        let cleaned = s.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        return String(String.UnicodeScalarView(cleaned)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// `/smp <servers>`: the relays new queues of the active user go to.
    func setServers(_ proto: ServerProtocol, _ servers: [String]) throws(ChatError) {
        let user = try activeUser()
        for s in servers {
            do { _ = try SMPServerAddress(parsing: s) } catch {
                throw .error(errorType: .commandError(message: "invalid server address \(s): \(error)"))
            }
        }
        try store.write { db in
            try db.run("DELETE FROM smp_servers WHERE user_id = ? AND protocol = ?", [user.userId, proto.rawValue])
            for s in servers {
                try db.run("INSERT INTO smp_servers (user_id, protocol, server) VALUES (?, ?, ?)", [user.userId, proto.rawValue, s])
            }
        }
    }
}

/// Servers, user deletion and the address in the profile.
extension ChatController {
    /// `/smp` and `/_servers <userId>`: the relays the user's new queues go to (the defaults the
    /// host configured when the user set none), without operators (none are preset here).
    func userServers(userId: Int64) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let rows = try store.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT server_id, protocol, server, enabled FROM smp_servers WHERE user_id = ? ORDER BY server_id"),
                             arguments: [userId])
        }
        var smp = rows.filter { ($0["protocol"] as String) == "smp" }.map {
            UserServer(serverId: $0["server_id"], server: $0["server"], enabled: $0["enabled"])
        }
        let xftp = rows.filter { ($0["protocol"] as String) == "xftp" }.map {
            UserServer(serverId: $0["server_id"], server: $0["server"], enabled: $0["enabled"])
        }
        if smp.isEmpty { smp = config.defaultSMPServers.map { UserServer(serverId: nil, server: $0, preset: true) } }
        return .userServers(user: user, userServers: [UserOperatorServers(smpServers: smp, xftpServers: xftp)])
    }

    /// `/_delete user <userId>`: the user and all its chats; its connections are deleted at the
    /// relays when `delSMPQueues` and the agent runs.
    func deleteUser(_ userId: Int64, delSMPQueues: Bool) async throws(ChatError) -> ChatResponse {
        _ = try userById(userId)
        let conns = try store.read { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT agent_conn_id FROM connections WHERE user_id = ?"), arguments: [userId])
                + String.fetchAll(db.cachedStatement(sql: "SELECT agent_conn_id FROM user_contact_links WHERE user_id = ?"), arguments: [userId])
                + String.fetchAll(db.cachedStatement(sql: "SELECT agent_conn_id FROM group_links WHERE user_id = ?"), arguments: [userId])
        }
        if let agent {
            for c in conns { try? await agent.deleteConnection(connId: c, deleteQueues: delSMPQueues) }
        }
        try store.write { db in
            try db.run("DELETE FROM chat_items WHERE user_id = ?", [userId])
            try db.run("DELETE FROM connections WHERE user_id = ?", [userId])
            try db.run("DELETE FROM contact_requests WHERE user_id = ?", [userId])
            try db.run("DELETE FROM groups WHERE user_id = ?", [userId])
            try db.run("DELETE FROM contacts WHERE user_id = ?", [userId])
            try db.run("DELETE FROM users WHERE user_id = ?", [userId])
        }
        return .cmdOk(user_: nil)
    }

    /// `/_profile_address <userId> on|off`: puts our address in the profile (so contacts can
    /// share it) or takes it out, and sends the profile to contacts.
    func setProfileAddress(userId: Int64, enable: Bool) async throws(ChatError) -> ChatResponse {
        var profile = try userById(userId).profile.profile
        if enable {
            guard let link = try store.read({ db in
                try String.fetchOne(db.cachedStatement(sql: "SELECT conn_link FROM user_contact_links WHERE user_id = ?"), arguments: [userId])
            }) else { throw .errorStore(storeError: .userContactLinkNotFound) }
            profile.contactLink = link
        } else {
            profile.contactLink = nil
        }
        try store.write { db in
            try db.run("UPDATE users SET contact_link = ? WHERE user_id = ?", [profile.contactLink, userId])
        }
        return try await updateProfile(userId: userId, profile, force: true)
    }
}
