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
        let profile = Profile(displayName: r["display_name"], fullName: r["full_name"], image: r["image"])
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
