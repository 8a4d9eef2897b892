import Foundation
import GRDB
import SMPAgent
import SimplexFoundation

/// Prepared contacts (seed 001 §3): a chat made from a link and the profile it carries, shown
/// before connecting, so the user can choose incognito (or write a first message) first.
extension ChatController {
    /// `/_prepare contact`: stores the contact with its link; nothing goes on the network.
    func prepareContact(userId: Int64, link: CreatedConnLink, data: ContactShortLinkData) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: link.connFullLink.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw .error(errorType: .invalidConnReq)
        }
        if data.business {
            // A business address becomes a group chat in SimpleX; groups are not built yet.
            throw .error(errorType: .commandError(message: "business addresses (prepared group chats) are not supported yet"))
        }
        switch try plan(userId: userId, parsed) {
        case .own: throw .error(errorType: .commandError(message: "this is your own link"))
        case .known(let contact): return .contactAlreadyExists(user: user, contact: contact)
        case .connecting, .fresh: break
        }
        let profile = data.profile
        let mode = parsed.mode == .contact ? "con" : "inv"
        let welcomeJSON = try data.message.map { m throws(ChatError) in try json(CIContent.rcvMsgContent(msgContent: m)) }
        let rcvNew = try json(CIStatus.rcvNew)
        let contactId = try store.write { db -> Int64 in
            let profileId = try db.insertContactProfile(userId: userId, profile, at: Self.now)
            let name = try self.uniqueName(db, userId: userId, Self.validDisplayName(profile.displayName))
            try db.run("""
                INSERT INTO contacts (user_id, local_display_name, profile_id, prepared_conn_link, prepared_short_link, prepared_link_mode,
                  created_at, updated_at, chat_ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [userId, name, profileId, parsed.withSimplexScheme.uriString, link.connShortLink, mode, Self.now, Self.now, Self.now])
            let contactId = db.lastInsertedRowID
            if let welcome = data.message, let welcomeJSON {
                // The greeting the link carries, shown as the peer's first message.
                try db.run("""
                    INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, created_at, updated_at)
                    VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?)
                    """, [userId, contactId, Self.now, welcome.text, welcomeJSON, rcvNew, Self.now, Self.now])
            }
            return contactId
        }
        let (contact, items) = try store.read { db -> (Contact?, [ChatItem]) in
            let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? ORDER BY chat_item_id"), arguments: [contactId])
            return (try self.contact(db, contactId), try rows.map { r in try Self.chatItem(db, r, deferred: self.store.deferredSentStatuses) })
        }
        guard let contact else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .newPreparedChat(user: user, chat: AChat(chatInfo: .direct(contact: contact), chatItems: items))
    }

    /// `/_connect contact @<id>`: joins the invitation or sends the request (with the optional
    /// message) through the prepared link; the connection belongs to the prepared contact.
    func connectPreparedContact(contactId: Int64, incognito: Bool, message: MsgContent?) async throws(ChatError) -> ChatResponse {
        guard let contact = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        guard let prepared = contact.preparedContact, contact.activeConn == nil else {
            throw .error(errorType: .commandError(message: "contact @\(contactId) is not a prepared contact"))
        }
        let userId = try store.read { db in try Int64.fetchOne(db, sql: "SELECT user_id FROM contacts WHERE contact_id = ?", arguments: [contactId]) } ?? 0
        let user = try userById(userId)
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: prepared.connLinkToConnect.connFullLink) } catch { throw .error(errorType: .invalidConnReq) }
        if message != nil && parsed.mode != .contact {
            throw .error(errorType: .commandError(message: "a message goes with a request to an address; send it after connecting"))
        }
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(userId) : nil
        let profile = try profileToSend(user, incognitoProfileId: incognitoId)
        let requestMsg = message.map { ChatMsgEvent.RequestMsg(msgId: SharedMsgId.random(), content: $0) }
        let info = try await encodeJoinInfo(parsed.mode == .contact ? .contact(profile: profile, requestMsg: requestMsg) : .info(profile), link: parsed)
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: parsed, connInfo: info, userId: userId) } catch {
            throw Self.agentError(error)
        }
        let sentJSON = try message.map { m throws(ChatError) in try json(CIContent.sndMsgContent(msgContent: m)) }
        let sndSent = try json(CIStatus.sndSent(sndProgress: .complete))
        let updated = try store.write { db -> Contact? in
            try db.run("""
                INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, via_contact_uri, via_link, custom_user_profile_id, contact_id,
                  initiated, created_at, updated_at) VALUES (?, ?, 'contact', 'joined', ?, ?, ?, ?, 1, ?, ?)
                """, [userId, agentConnId, parsed.mode == .contact, parsed.withSimplexScheme.uriString, incognitoId, contactId, Self.now, Self.now])
            try db.run("UPDATE contacts SET contact_used = 1, updated_at = ? WHERE contact_id = ?", [Self.now, contactId])
            if let message, let sentJSON, let requestMsg {
                try db.run("""
                    INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, shared_msg_id, created_at, updated_at)
                    VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
                    """, [userId, contactId, Self.now, message.text, sentJSON, sndSent, requestMsg.msgId.base64url, Self.now, Self.now])
                try db.run("UPDATE contacts SET chat_ts = ? WHERE contact_id = ?", [Self.now, contactId])
            }
            return try self.contact(db, contactId)
        }
        guard let updated else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .startedConnectionToContact(user: user, contact: updated)
    }

    /// `/_prepare group`: a group shown from its link's data; nothing goes on the network.
    func prepareGroup(userId: Int64, link: CreatedConnLink, data: GroupShortLinkData) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: link.connFullLink.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw .error(errorType: .invalidConnReq)
        }
        guard let linkId = Self.groupLinkId(parsed) else { throw .error(errorType: .commandError(message: "not a group link")) }
        switch try groupPlan(userId: userId, parsed) {
        case .ownLink: throw .error(errorType: .commandError(message: "this is your own group link"))
        case .known(let g), .connectingProhibit(let g?):
            throw .error(errorType: .commandError(message: "you are already in group \(g.localDisplayName)"))
        default: break
        }
        let profileJSON = try json(data.groupProfile)
        let welcome = data.groupProfile.description.flatMap { $0.isEmpty ? nil : $0 }
        let welcomeJSON = try welcome.map { w throws(ChatError) in try json(CIContent.rcvMsgContent(msgContent: .text(w))) }
        let rcvNew = try json(CIStatus.rcvNew)
        let full = parsed.withSimplexScheme.uriString
        let groupId = try store.write { db -> Int64 in
            let name = try self.uniqueGroupName(db, userId: userId, Self.validDisplayName(data.groupProfile.displayName))
            try db.run("""
                INSERT INTO groups (user_id, local_display_name, group_profile, via_group_link_uri, via_group_link_id, prepared_conn_link,
                  prepared_short_link, created_at, updated_at, chat_ts)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [userId, name, profileJSON, full, linkId, full, link.connShortLink, Self.now, Self.now, Self.now])
            let groupId = db.lastInsertedRowID
            // Our membership until the host tells us our member ID and role.
            try db.run("""
                INSERT INTO group_members (group_id, user_id, member_id, member_role, member_category, member_status, local_display_name,
                  created_at, updated_at)
                VALUES (?, ?, ?, 'member', 'user', 'unknown', ?, ?, ?)
                """, [groupId, userId, MemberId.random().base64url, user.localDisplayName, Self.now, Self.now])
            if let welcome, let welcomeJSON {
                try db.run("""
                    INSERT INTO chat_items (user_id, group_id, item_sent, item_ts, item_text, item_content, item_status, created_at, updated_at)
                    VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?)
                    """, [userId, groupId, Self.now, welcome, welcomeJSON, rcvNew, Self.now, Self.now])
            }
            return groupId
        }
        let (g, items) = try store.read { db -> (GroupInfo?, [ChatItem]) in
            let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE group_id = ? ORDER BY chat_item_id"), arguments: [groupId])
            return (try Self.groupInfo(db, groupId), try rows.map { r in try Self.chatItem(db, r, deferred: self.store.deferredSentStatuses) })
        }
        guard let g else { throw .errorStore(storeError: .groupNotFound(groupId: groupId)) }
        return .newPreparedChat(user: user, chat: AChat(chatInfo: .group(groupInfo: g, groupChatScope: nil), chatItems: items))
    }

    /// `/_connect group #<id>`: joins the prepared group's link (x.contact); the host's
    /// x.grp.link.inv then completes this group rather than making a new one.
    func connectPreparedGroup(groupId: Int64, incognito: Bool, message: MsgContent?) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        guard let prepared = g.preparedGroup, !prepared.connLinkStartedConnection, g.membership.memberStatus == .unknown else {
            throw .error(errorType: .commandError(message: "group \(g.localDisplayName) is not a prepared group, or it is already joining"))
        }
        if message != nil { throw .error(errorType: .connReqMessageProhibited) }
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: prepared.connLinkToConnect.connFullLink) } catch { throw .error(errorType: .invalidConnReq) }
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(user.userId) : nil
        let profile = try profileToSend(user, incognitoProfileId: incognitoId)
        let info = try await encodeJoinInfo(.contact(profile: redacted(profile), contactReqId: XContactId(bytes: SecureRandom.bytes(16))), link: parsed)
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: parsed, connInfo: info, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.run("""
                INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, via_contact_uri, via_link, via_group_link_id, prepared_group_id,
                  custom_user_profile_id, initiated, created_at, updated_at)
                VALUES (?, ?, 'contact', 'joined', 1, ?, ?, ?, ?, 1, ?, ?)
                """, [user.userId, agentConnId, parsed.withSimplexScheme.uriString, Self.groupLinkId(parsed), groupId, incognitoId, Self.now, Self.now])
            try db.run("UPDATE groups SET prepared_started = 1, updated_at = ? WHERE group_id = ?", [Self.now, groupId])
            try db.run("UPDATE group_members SET member_profile_id = ? WHERE group_id = ? AND member_category = 'user'", [incognitoId, groupId])
        }
        return .startedConnectionToGroup(user: user, groupInfo: try groupInfo(groupId), customUserProfile: incognito ? profile : nil)
    }
}
