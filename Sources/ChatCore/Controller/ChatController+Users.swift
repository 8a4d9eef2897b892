import Foundation
import GRDB
import SMPTransport
import XFTPProtocol

/// Chat profiles of this device (`/_create user`, `/user`, `/users`, `/_user`).
extension ChatController {
    func activeUser() throws(ChatError) -> User {
        guard let u = try store.read({ db in try db.activeUserRecord() }) else { throw .error(errorType: .noActiveUser) }
        return u.user
    }

    func users() throws(ChatError) -> [User] {
        try store.read { db in try db.userRecords() }.map(\.user)
    }

    func createUser(_ new: NewUser) throws(ChatError) -> User {
        guard let profile = new.profile else {
            throw .error(errorType: .commandError(message: "a profile is required"))
        }
        let valid = Self.validDisplayName(profile.displayName)
        guard !valid.isEmpty, valid == profile.displayName else {
            throw .error(errorType: .invalidDisplayName(displayName: profile.displayName, validName: valid))
        }
        let record = try store.write { db -> UserRecord? in
            if try db.userNameExists(valid) { throw ChatError.error(errorType: .userExists(contactName: valid)) }
            let id = try db.insertUser(localDisplayName: valid, profile, activeOrder: try db.nextActiveOrder(), at: Self.now)
            return try db.userRecord(id)
        }
        guard let record else { throw .error(errorType: .internalError(message: "user not stored")) }
        return record.user
    }

    func setActiveUser(_ userId: Int64) throws(ChatError) -> User {
        let record = try store.write { db -> UserRecord? in
            guard try db.userRecord(userId) != nil else { throw ChatError.errorStore(storeError: .userNotFound(userId: userId)) }
            try db.makeUserActive(userId, order: try db.nextActiveOrder())
            return try db.userRecord(userId)
        }
        guard let record else { throw .errorStore(storeError: .userNotFound(userId: userId)) }
        return record.user
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
            if proto == .xftp {
                // XFTP servers for files (issue 15).
                guard XFTPServerAddress(parsing: s) != nil else { throw .error(errorType: .commandError(message: "invalid server address \(s)")) }
                continue
            }
            do { _ = try SMPServerAddress(parsing: s) } catch {
                throw .error(errorType: .commandError(message: "invalid server address \(s): \(error)"))
            }
        }
        try store.write { db in try db.replaceUserServers(user.userId, protocol: proto.rawValue, servers) }
    }
}

/// Servers, user deletion and the address in the profile.
extension ChatController {
    /// `/smp` and `/_servers <userId>`: the relays the user's new queues go to (the defaults the
    /// host configured when the user set none), without operators (none are preset here).
    func userServers(userId: Int64) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let rows = try store.read { db in try db.userServerRows(userId) }
        var smp = rows.filter { ($0["protocol"] as String) == "smp" }.map {
            UserServer(serverId: $0["server_id"], server: $0["server"], enabled: $0["enabled"])
        }
        let xftp = rows.filter { ($0["protocol"] as String) == "xftp" }.map {
            UserServer(serverId: $0["server_id"], server: $0["server"], enabled: $0["enabled"])
        }
        if smp.isEmpty { smp = config.defaultSMPServers.map { UserServer(serverId: nil, server: $0, preset: true) } }
        let xftpShown = xftp.isEmpty ? config.defaultXFTPServers.map { UserServer(serverId: nil, server: $0, preset: true) } : xftp
        return .userServers(user: user, userServers: [UserOperatorServers(smpServers: smp, xftpServers: xftpShown)])
    }

    /// `/_delete user <userId>`: the user and all its chats; its connections are deleted at the
    /// relays when `delSMPQueues` and the agent runs.
    func deleteUser(_ userId: Int64, delSMPQueues: Bool) async throws(ChatError) -> ChatResponse {
        _ = try userById(userId)
        let conns = try store.read { db in try db.userAgentConnIds(userId) }
        try await deleteAgentConnections(conns, deleteQueues: delSMPQueues)
        try store.write { db in try db.deleteUser(userId) }
        return .cmdOk(user_: nil)
    }

    /// `/_profile_address <userId> on|off`: puts our address in the profile (so contacts can
    /// share it) or takes it out, and sends the profile to contacts.
    func setProfileAddress(userId: Int64, enable: Bool) async throws(ChatError) -> ChatResponse {
        var profile = try userById(userId).profile.profile
        if enable {
            guard let link = try store.read({ db in try db.userAddressLink(userId) }) else { throw .errorStore(storeError: .userContactLinkNotFound) }
            profile.contactLink = link
        } else {
            profile.contactLink = nil
        }
        try store.write { db in try db.setUserContactLink(userId, profile.contactLink) }
        return try await updateProfile(userId: userId, profile, force: true)
    }
}
