import Foundation
import GRDB
import SMPAgent

/// Connection security codes (simplex-chat Commands.hs `APIGetContactCode`, `APIVerifyContact` and
/// the member forms; Subscriber.hs RSYNC): the code is derived from the ratchet's associated data,
/// which both sides share, so two users compare it out of band; a verified code is stored on the
/// connection and cleared when the ratchet is re-synchronized (the keys changed).
extension ChatController {
    /// simplex-chat `verificationCode`: the bytes as one big-endian number (`os2ip`), in decimal,
    /// in groups of five digits.
    static func verificationCode(_ bytes: [UInt8]) -> String {
        var number = Array(bytes.drop { $0 == 0 })
        var digits: [UInt8] = []
        // Repeated division by 10 of the base-256 number, least significant digit first.
        while !number.isEmpty {
            var remainder = 0
            var quotient: [UInt8] = []
            quotient.reserveCapacity(number.count)
            for b in number {
                let acc = remainder * 256 + Int(b)
                let q = acc / 10
                remainder = acc % 10
                if !quotient.isEmpty || q != 0 { quotient.append(UInt8(q)) }
            }
            digits.append(UInt8(remainder))
            number = quotient
        }
        let text = digits.isEmpty ? "0" : String(digits.reversed().map { Character(String($0)) })
        var groups: [Substring] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            groups.append(rest.prefix(5))
            rest = rest.dropFirst(5)
        }
        return groups.joined(separator: " ")
    }

    /// simplex-chat `sameVerificationCode`: equal once spaces are removed.
    static func sameVerificationCode(_ a: String, _ b: String) -> Bool {
        a.filter { $0 != " " } == b.filter { $0 != " " }
    }

    /// The current code of an agent connection (`getConnectionCode`).
    func connectionCode(_ agentConnId: String) async throws(ChatError) -> String {
        let agent = try runningAgent()
        do {
            return Self.verificationCode(try await agent.connectionRatchetAdHash(connId: agentConnId))
        } catch {
            throw Self.agentError(error, connId: agentConnId)
        }
    }

    /// `/_get code @<contactId>`: a stored verification that no longer matches is cleared.
    func getContactCode(contactId: Int64) async throws(ChatError) -> ChatResponse {
        let (userId, contact) = try contactWithUser(contactId)
        guard let conn = contact.activeConn else { throw .error(errorType: .contactNotActive(contact: contact)) }
        let code = try await connectionCode(conn.agentConnId)
        let updated = try clearStaleVerification(conn, code) ? try contactWithUser(contactId).1 : contact
        return .contactCode(user: try userById(userId), contact: updated, connectionCode: code)
    }

    /// `/_get code #<groupId> <groupMemberId>`.
    func getMemberCode(groupId: Int64, groupMemberId: Int64) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == groupId, let conn = m.activeConn else { throw .error(errorType: .groupMemberNotActive) }
        let code = try await connectionCode(conn.agentConnId)
        let updated = try clearStaleVerification(conn, code) ? try member(groupMemberId) : m
        return .groupMemberCode(user: user, groupInfo: g, member: updated, connectionCode: code)
    }

    /// `/_verify code @<contactId>[ <code>]`.
    func verifyContact(contactId: Int64, code: String?) async throws(ChatError) -> ChatResponse {
        let (userId, contact) = try contactWithUser(contactId)
        guard let conn = contact.activeConn else { throw .error(errorType: .contactNotActive(contact: contact)) }
        return try await verifyConnection(userId: userId, conn, code)
    }

    /// `/_verify code #<groupId> <groupMemberId>[ <code>]`.
    func verifyMember(groupId: Int64, groupMemberId: Int64, code: String?) async throws(ChatError) -> ChatResponse {
        let (user, _) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == groupId, let conn = m.activeConn else { throw .error(errorType: .groupMemberNotActive) }
        return try await verifyConnection(userId: user.userId, conn, code)
    }

    /// simplex-chat `verifyConnectionCode`: a matching code is stored as verified; no code clears it.
    private func verifyConnection(userId: Int64, _ conn: Connection, _ code: String?) async throws(ChatError) -> ChatResponse {
        let current = try await connectionCode(conn.agentConnId)
        let verified = code.map { Self.sameVerificationCode($0, current) } ?? false
        if verified || code == nil {
            try store.write { db in try db.setConnectionVerified(connectionId: conn.connId, code: verified ? current : nil, at: Self.now) }
        }
        return .connectionVerified(user: try userById(userId), verified: verified, expectedCode: current)
    }

    private func contactWithUser(_ contactId: Int64) throws(ChatError) -> (Int64, Contact) {
        let found = try store.read { db -> (Int64, Contact)? in
            guard let uid = try db.contactUserId(contactId), let c = try self.contact(db, contactId) else { return nil }
            return (uid, c)
        }
        guard let found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return found
    }

    /// Clears a stored verification whose code is not the current one; returns whether it did.
    private func clearStaleVerification(_ conn: Connection, _ code: String) throws(ChatError) -> Bool {
        guard let stored = conn.connectionCode, !Self.sameVerificationCode(stored.securityCode, code) else { return false }
        try store.write { db in try db.setConnectionVerified(connectionId: conn.connId, code: nil, at: Self.now) }
        return true
    }

    /// Subscriber.hs RSYNC `RSAgreed` with a verified code: the ratchet's keys changed, so the
    /// verification is cleared. Returns whether it was (the caller then reports the reset).
    func resetVerificationOnSync(_ connRow: Row, _ state: SMPAgent.SyncState) throws(ChatError) -> Bool {
        guard state == .agreed, (connRow["security_code"] as String?) != nil else { return false }
        let connectionId: Int64 = connRow["connection_id"]
        try store.write { db in try db.setConnectionVerified(connectionId: connectionId, code: nil, at: Self.now) }
        return true
    }

    /// simplex-chat `RCEVerificationCodeReset` text.
    static let verificationResetText = "security code changed"
}
